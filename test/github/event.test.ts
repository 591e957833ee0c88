import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunContext } from '../../src/github/event.js';

function contextFor(eventName: string, payload: Record<string, unknown>, ref = 'refs/heads/main') {
  const dir = mkdtempSync(join(tmpdir(), 'event-'));
  const path = join(dir, 'event.json');
  writeFileSync(path, JSON.stringify(payload));
  return readRunContext({ GITHUB_EVENT_NAME: eventName, GITHUB_EVENT_PATH: path, GITHUB_REPOSITORY: 'acme/fleet', GITHUB_SHA: 'f'.repeat(40), GITHUB_REF: ref, GITHUB_RUN_ID: '42' });
}

describe('readRunContext', () => {
  it('builds the run URL', () => {
    expect(contextFor('push', {}).runUrl).toBe('https://github.com/acme/fleet/actions/runs/42');
  });

  it('reads the event payload, repository, commit and API URL', () => {
    const context = contextFor('pull_request', { action: 'opened', number: 5 });
    expect(context).toMatchObject({ eventName: 'pull_request', payload: { action: 'opened', number: 5 }, owner: 'acme', repo: 'fleet', sha: 'f'.repeat(40), ref: 'refs/heads/main', apiUrl: 'https://api.github.com' });
  });

  it('says when the event payload is missing or not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'event-'));
    expect(() => readRunContext({ GITHUB_EVENT_PATH: join(dir, 'missing.json') })).toThrow(/GITHUB_EVENT_PATH=.*missing\.json does not exist; is this running in GitHub Actions\?/);
    writeFileSync(join(dir, 'broken.json'), '{');
    expect(() => readRunContext({ GITHUB_EVENT_PATH: join(dir, 'broken.json') })).toThrow(/broken\.json cannot be read as JSON/);
  });
});
