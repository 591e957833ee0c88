import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseCommitOf, readRunContext } from '../../src/github/event.js';

function contextFor(eventName: string, payload: Record<string, unknown>, ref = 'refs/heads/main') {
  const dir = mkdtempSync(join(tmpdir(), 'event-'));
  const path = join(dir, 'event.json');
  writeFileSync(path, JSON.stringify(payload));
  return readRunContext({
    GITHUB_EVENT_NAME: eventName,
    GITHUB_EVENT_PATH: path,
    GITHUB_REPOSITORY: 'acme/fleet',
    GITHUB_SHA: 'f'.repeat(40),
    GITHUB_REF: ref,
    GITHUB_RUN_ID: '42',
  });
}

describe('readRunContext', () => {
  it('builds the run URL', () => {
    expect(contextFor('push', {}).runUrl).toBe('https://github.com/acme/fleet/actions/runs/42');
  });

  it('reads the event payload, repository, commit and API URL', () => {
    const context = contextFor('pull_request', { action: 'opened', number: 5 });
    expect(context).toMatchObject({
      eventName: 'pull_request',
      payload: { action: 'opened', number: 5 },
      owner: 'acme',
      repo: 'fleet',
      sha: 'f'.repeat(40),
      ref: 'refs/heads/main',
      apiUrl: 'https://api.github.com',
    });
  });

  it('says when the event payload is missing or not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'event-'));
    expect(() => readRunContext({ GITHUB_EVENT_PATH: join(dir, 'missing.json') })).toThrow(
      /GITHUB_EVENT_PATH=.*missing\.json does not exist; is this running in GitHub Actions\?/,
    );
    writeFileSync(join(dir, 'broken.json'), '{');
    expect(() => readRunContext({ GITHUB_EVENT_PATH: join(dir, 'broken.json') })).toThrow(
      /broken\.json cannot be read as JSON/,
    );
  });
});

describe('baseCommitOf', () => {
  const a = 'a'.repeat(40);
  it("takes a pull request's base commit, on pull_request and pull_request_target", () => {
    for (const name of ['pull_request', 'pull_request_target']) {
      expect(
        baseCommitOf({
          eventName: name,
          payload: { action: 'opened', pull_request: { base: { sha: a }, head: { sha: 'b'.repeat(40) } } },
        }),
      ).toEqual({ commit: { sha: a, role: "the pull request's base" } });
    }
  });

  it("takes a push's before commit, and none for a push that created the branch", () => {
    expect(baseCommitOf({ eventName: 'push', payload: { before: a, after: 'b'.repeat(40) } })).toEqual({
      commit: { sha: a, role: "the push's before" },
    });
    expect(
      baseCommitOf({ eventName: 'push', payload: { before: '0'.repeat(40), created: true } }).commit,
    ).toBeUndefined();
    expect(baseCommitOf({ eventName: 'push', payload: { before: '0'.repeat(40) } }).none).toMatch(/created the branch/);
    expect(baseCommitOf({ eventName: 'push', payload: { before: a, created: true } }).commit).toBeUndefined();
  });

  it('has none for other events and for values that are not commit ids', () => {
    expect(baseCommitOf({ eventName: 'workflow_dispatch', payload: {} }).none).toBe(
      'a workflow_dispatch event compares no commits',
    );
    expect(baseCommitOf({ eventName: 'schedule', payload: {} }).commit).toBeUndefined();
    expect(baseCommitOf({ eventName: 'push', payload: { before: '--output=/tmp/x' } }).none).toBe(
      'the push event has no "before" commit id',
    );
    expect(
      baseCommitOf({ eventName: 'pull_request', payload: { pull_request: { base: { sha: 'main' } } } }).commit,
    ).toBeUndefined();
  });
});
