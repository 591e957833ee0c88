// Where the action's base runtime comes from: the event's base commit, read with git when
// the checkout holds it and through the GitHub stand-in's contents endpoint when it does
// not (a shallow checkout), with the working directory turned into repository paths; no
// base runtime for a first pull request or a new branch; a warning, redacted, for a base
// runtime that cannot be read or does not evaluate.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBaseRuntime, type BaseRuntimeInputs } from '../../src/action/base-runtime.js';
import { loadCueEngine, type CueEngine } from '../../src/cue/index.js';
import type { RunContext } from '../../src/github/event.js';
import { startGitHubStandIn, type GitHubStandIn } from '../harness/github/standin/server.js';

const runtimeOf = (...clusters: string[]) =>
  `runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "fleet"\n\tclusters: {\n${clusters.map((c) => `\t\t"${c}": { group: "staging", kubeContext: "ctx-${c}" }\n`).join('')}\t}\n}\n`;
const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@e',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@e',
};

let engine: CueEngine;
let github: GitHubStandIn;
let root: string;
let clone: string;
let baseInClone: string;
const apiBase = 'b'.repeat(40);

beforeAll(async () => {
  engine = await loadCueEngine();
  github = await startGitHubStandIn();
  github.state.addRepository({ owner: 'acme', name: 'fleet' });
  github.state.putFiles('acme', 'fleet', apiBase, { 'deploy/runtime.cue': runtimeOf('one', 'two', 'three') });
  root = mkdtempSync(join(tmpdir(), 'base-runtime-'));
  // A clone holding the base commit (fetch-depth 2): runtime.cue with three clusters there, two at its head.
  clone = join(root, 'clone');
  mkdirSync(join(clone, 'deploy'), { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', clone, ...args], { encoding: 'utf8', env: gitEnv }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(join(clone, 'deploy', 'runtime.cue'), runtimeOf('a', 'b', 'c'));
  git('add', '.');
  git('commit', '-q', '-m', 'base');
  baseInClone = git('rev-parse', 'HEAD');
  writeFileSync(join(clone, 'deploy', 'runtime.cue'), runtimeOf('a', 'b'));
  git('commit', '-q', '-am', 'head');
});
afterAll(async () => {
  await github.stop();
  rmSync(root, { recursive: true, force: true });
});

function context(eventName: string, payload: Record<string, unknown>): RunContext {
  return {
    eventName,
    payload,
    owner: 'acme',
    repo: 'fleet',
    sha: 'f'.repeat(40),
    ref: 'refs/heads/main',
    runUrl: '',
    apiUrl: github.url,
  };
}
const pullRequest = (baseSha: string) =>
  context('pull_request', {
    action: 'opened',
    pull_request: { number: 7, base: { sha: baseSha }, head: { sha: 'e'.repeat(40) } },
  });

/** A workspace without .git (a checkout made without git): only the API can read the base. */
function plainWorkspace(name: string, runtime: string): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'deploy'), { recursive: true });
  writeFileSync(join(dir, 'deploy', 'runtime.cue'), runtime);
  return dir;
}

function inputs(
  over: Partial<BaseRuntimeInputs> & Pick<BaseRuntimeInputs, 'context' | 'workspace'>,
  lines: string[],
): BaseRuntimeInputs {
  return {
    runtimeFiles: ['deploy/runtime.cue'],
    cwd: over.workspace,
    engine,
    githubToken: github.token,
    signal: AbortSignal.timeout(60_000),
    log: (line) => lines.push(line),
    redact: (text) => text.split('hunter2').join('***'),
    ...over,
  };
}

describe('readBaseRuntime', () => {
  it('reads the pull request base with git when the checkout holds it, without asking GitHub', async () => {
    const before = github.state.requests.length;
    const lines: string[] = [];
    const outcome = await readBaseRuntime(inputs({ context: pullRequest(baseInClone), workspace: clone }, lines));
    expect(outcome.baseRuntimeWarning).toBeUndefined();
    expect(outcome.baseRuntime?.runtime.clusters.map((c) => c.name)).toEqual(['a', 'b', 'c']);
    expect(outcome.baseRuntime?.from).toBe(
      `deploy/runtime.cue at base commit ${baseInClone.slice(0, 7)} (the pull request's base), read with git`,
    );
    expect(github.state.requests.length).toBe(before);
  });

  it('reads through the contents endpoint when the checkout is shallow, from the working directory as a repository path', async () => {
    const workspace = plainWorkspace('shallow', runtimeOf('one', 'two'));
    const lines: string[] = [];
    const outcome = await readBaseRuntime(
      inputs(
        { context: pullRequest(apiBase), workspace, cwd: join(workspace, 'deploy'), runtimeFiles: ['runtime.cue'] },
        lines,
      ),
    );
    expect(outcome.baseRuntime?.runtime.clusters.map((c) => c.name)).toEqual(['one', 'two', 'three']);
    expect(outcome.baseRuntime?.from).toMatch(
      /^runtime\.cue at base commit bbbbbbb \(the pull request's base\), read with the GitHub API$/,
    );
    // The runtime file, and the working directory's cue.mod (none at the base), both at the base commit.
    expect(github.state.requestsTo('GET', /\/contents\//).map((request) => request.path)).toEqual(
      expect.arrayContaining([
        `/repos/acme/fleet/contents/deploy/runtime.cue?ref=${apiBase}`,
        `/repos/acme/fleet/contents/deploy/cue.mod?ref=${apiBase}`,
      ]),
    );
  });

  it("takes the push's before commit, and a clone that lacks the commit falls back to the API", async () => {
    const lines: string[] = [];
    const outcome = await readBaseRuntime(
      inputs({ context: context('push', { before: apiBase, after: 'f'.repeat(40) }), workspace: clone }, lines),
    );
    expect(outcome.baseRuntime?.runtime.clusters.map((c) => c.name)).toEqual(['one', 'two', 'three']);
    expect(outcome.baseRuntime?.from).toMatch(/\(the push's before\), read with the GitHub API$/);
  });

  it('has no base runtime for a first pull request (no runtime file at the base), a new branch, or a dispatch', async () => {
    const first = 'c'.repeat(40);
    github.state.putFiles('acme', 'fleet', first, { 'README.md': 'hello\n' });
    const workspace = plainWorkspace('first', runtimeOf('one'));
    const lines: string[] = [];
    expect(await readBaseRuntime(inputs({ context: pullRequest(first), workspace }, lines))).toEqual({});
    expect(lines.at(-1)).toBe(
      "fleet membership: deploy/runtime.cue did not exist at base commit ccccccc (the pull request's base); no cluster leaves the fleet in this run",
    );
    expect(
      await readBaseRuntime(
        inputs({ context: context('push', { before: '0'.repeat(40), created: true }), workspace }, lines),
      ),
    ).toEqual({});
    expect(lines.at(-1)).toMatch(/the push created the branch/);
    expect(await readBaseRuntime(inputs({ context: context('workflow_dispatch', {}), workspace }, lines))).toEqual({});
  });

  describe("the base's own cue.mod, never the head's", () => {
    // The runtime is the same at the base and the head; only the package it imports from
    // cue.mod/pkg changes: three clusters at the base, one at the head.
    const importingRuntime =
      'import "example.com/members"\n\nruntime: {\n\tapiVersion: "v1alpha1"\n\tname: "fleet"\n\tclusters: members.clusters\n}\n';
    const moduleCue = 'module: "acme.com/deploy"\nlanguage: version: "v0.9.0"\n';
    const membersOf = (...clusters: string[]) =>
      `package members\n\nclusters: {\n${clusters.map((c) => `\t"${c}": { group: "staging", kubeContext: "ctx-${c}" }\n`).join('')}}\n`;
    const cueMod = (prefix: string, ...clusters: string[]): Record<string, string> => ({
      [`${prefix}cue.mod/module.cue`]: moduleCue,
      [`${prefix}cue.mod/pkg/example.com/members/members.cue`]: membersOf(...clusters),
    });
    /** The working directory deploy/ as the head has it: the runtime, and cue.mod with `clusters` (none: no cue.mod). */
    function headWorkTree(dir: string, clusters: string[] | undefined): void {
      rmSync(join(dir, 'deploy', 'cue.mod'), { recursive: true, force: true });
      mkdirSync(join(dir, 'deploy'), { recursive: true });
      writeFileSync(join(dir, 'deploy', 'runtime.cue'), importingRuntime);
      if (clusters)
        for (const [path, text] of Object.entries(cueMod('deploy/', ...clusters))) {
          mkdirSync(join(dir, path, '..'), { recursive: true });
          writeFileSync(join(dir, path), text);
        }
    }

    it('reads cue.mod at the base with git: the head changing only cue.mod changes no cluster of the base', async () => {
      const repo = join(root, 'cue-mod-git');
      mkdirSync(repo, { recursive: true });
      const git = (...args: string[]) =>
        execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', env: gitEnv }).trim();
      git('init', '-q', '-b', 'main');
      headWorkTree(repo, ['one', 'two', 'three']);
      git('add', '.');
      git('commit', '-q', '-m', 'base');
      const base = git('rev-parse', 'HEAD');
      headWorkTree(repo, ['one']);
      const cwd = join(repo, 'deploy');
      const read = () =>
        readBaseRuntime(
          inputs({ context: pullRequest(base), workspace: repo, cwd, runtimeFiles: ['runtime.cue'] }, []),
        );
      expect((await read()).baseRuntime?.runtime.clusters.map((c) => c.name)).toEqual(['one', 'two', 'three']);
      // cue.mod gone from the head: the base's is still read.
      headWorkTree(repo, undefined);
      expect((await read()).baseRuntime?.runtime.clusters.map((c) => c.name)).toEqual(['one', 'two', 'three']);
    });

    it('reads cue.mod at the base through the contents endpoint, and a base without cue.mod has none', async () => {
      const withModule = '1'.repeat(40);
      github.state.putFiles('acme', 'fleet', withModule, {
        'deploy/runtime.cue': importingRuntime,
        ...cueMod('deploy/', 'one', 'two', 'three'),
      });
      const workspace = join(root, 'cue-mod-api');
      headWorkTree(workspace, ['one']);
      const cwd = join(workspace, 'deploy');
      const lines: string[] = [];
      const read = (sha: string) =>
        readBaseRuntime(inputs({ context: pullRequest(sha), workspace, cwd, runtimeFiles: ['runtime.cue'] }, lines));
      const outcome = await read(withModule);
      expect(outcome.baseRuntimeWarning).toBeUndefined();
      expect(outcome.baseRuntime?.runtime.clusters.map((c) => c.name)).toEqual(['one', 'two', 'three']);
      expect(github.state.requestsTo('GET', /\/contents\//).map((request) => request.path)).toEqual(
        expect.arrayContaining([
          `/repos/acme/fleet/contents/deploy/cue.mod/pkg/example.com/members/members.cue?ref=${withModule}`,
        ]),
      );

      // The base had the runtime but no cue.mod: its import cannot be resolved from the head's.
      const withoutModule = '2'.repeat(40);
      github.state.putFiles('acme', 'fleet', withoutModule, { 'deploy/runtime.cue': importingRuntime });
      const without = await read(withoutModule);
      expect(without.baseRuntime).toBeUndefined();
      expect(without.baseRuntimeWarning).toMatch(
        /does not evaluate: .*import failed: .*no cue\.mod\/module\.cue file/s,
      );
    });
  });

  it('warns, redacted, when the base runtime does not evaluate, and when it cannot be read', async () => {
    const broken = 'd'.repeat(40);
    github.state.putFiles('acme', 'fleet', broken, {
      'deploy/runtime.cue': 'runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "hunter2" & 5\n}\n',
    });
    const workspace = plainWorkspace('broken', runtimeOf('one'));
    const lines: string[] = [];
    const bad = await readBaseRuntime(inputs({ context: pullRequest(broken), workspace }, lines));
    expect(bad.baseRuntime).toBeUndefined();
    expect(bad.baseRuntimeWarning).toMatch(
      /^the runtime at base commit ddddddd \(the pull request's base\) does not evaluate: /,
    );
    expect(bad.baseRuntimeWarning).toContain('***');
    expect(bad.baseRuntimeWarning).not.toContain('hunter2');

    github.state.forceError({ status: 500, message: 'Server Error', path: /\/contents\//, times: 10 });
    const unreadable = await readBaseRuntime(inputs({ context: pullRequest(apiBase), workspace }, lines));
    expect(unreadable.baseRuntime).toBeUndefined();
    expect(unreadable.baseRuntimeWarning).toMatch(
      /^the runtime at base commit bbbbbbb \(the pull request's base\) could not be read: GitHub API GET \/repos\/acme\/fleet\/contents\/deploy\/runtime\.cue\?ref=b{40} answered 500/,
    );
  }, 30_000);

  it('refuses a runtime file outside the workspace', async () => {
    const workspace = plainWorkspace('outside', runtimeOf('one'));
    const outcome = await readBaseRuntime(
      inputs({ context: pullRequest(apiBase), workspace, runtimeFiles: ['../clone/deploy/runtime.cue'] }, []),
    );
    expect(outcome.baseRuntimeWarning).toMatch(
      /cannot be located: runtime file \.\.\/clone\/deploy\/runtime\.cue is not inside the workspace/,
    );
  });
});
