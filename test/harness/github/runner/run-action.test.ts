import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readActionMetadata } from './action-metadata.js';
import { REPO_ROOT } from './node-runtime.js';
import { runAction } from './run-action.js';
import { assertNoSecretLeak } from './secret-leak.js';

const ACTION_YML = `name: probe
description: test action
inputs:
  bundle:
    description: bundle files
    required: true
  runtime-group:
    description: group
    default: '*'
  runtime-from-env:
    default: false
  dry run:
    default: "yes"
  no-default:
    description: nothing
  github-token:
    default: \${{ github.token }}
  pr-number:
    default: \${{ github.event.pull_request.number || 'none' }}
runs:
  using: node24
  main: dist/index.js
`;

const EVENT = {
  name: 'pull_request',
  payload: {
    action: 'opened',
    number: 42,
    pull_request: {
      number: 42,
      head: { sha: 'h'.repeat(40), ref: 'feature' },
      base: { ref: 'main' },
      merge_commit_sha: 'm'.repeat(40),
    },
    repository: { full_name: 'acme/fleet', id: 77, owner: { login: 'acme', id: 5 } },
    sender: { login: 'alice', id: 9 },
  },
};

describe('runAction', () => {
  let dir: string;
  let actionYml: string;
  const entry = async (name: string, code: string): Promise<string> => {
    const path = join(dir, `${name}.mjs`);
    await writeFile(path, code);
    return path;
  };
  const common = () => ({
    actionYmlPath: actionYml,
    event: EVENT,
    githubApiUrl: 'http://127.0.0.1:9',
    workdir: join(dir, 'ws'),
  });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'run-action-test-'));
    actionYml = join(dir, 'action.yml');
    await writeFile(actionYml, ACTION_YML);
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('runs the tests and the action under Node 24', async () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
    const run = await runAction({ ...common(), entry: await entry('version', 'console.log(process.version)') });
    expect(run.stdout.trim()).toMatch(/^v24\./);
  });

  it('sets INPUT_ variables (dashes kept, spaces to _), defaults and evaluated expressions', async () => {
    const run = await runAction({
      ...common(),
      token: 'ghs_probe_token_value',
      inputs: { bundle: 'bundle.cue', 'runtime-group': 'staging' },
      entry: await entry(
        'inputs',
        `
        const pick = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('INPUT_')));
        console.log(JSON.stringify(pick));`,
      ),
    });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      INPUT_BUNDLE: 'bundle.cue',
      'INPUT_RUNTIME-GROUP': 'staging',
      'INPUT_RUNTIME-FROM-ENV': 'false',
      INPUT_DRY_RUN: 'yes',
      'INPUT_NO-DEFAULT': '',
      'INPUT_GITHUB-TOKEN': 'ghs_probe_token_value',
      'INPUT_PR-NUMBER': '42',
    });
  });

  it('reads the repository action.yml by default and gives every input its default', async () => {
    const metadata = readActionMetadata(join(REPO_ROOT, 'action.yml'));
    const run = await runAction({
      event: EVENT,
      githubApiUrl: 'http://127.0.0.1:9',
      inputs: { bundle: 'b.cue' },
      entry: await entry(
        'repo-inputs',
        `console.log(JSON.stringify(Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('INPUT_')))))`,
      ),
    });
    const seen = JSON.parse(run.stdout) as Record<string, string>;
    expect(seen.INPUT_BUNDLE).toBe('b.cue');
    for (const input of metadata.inputs.filter((i) => i.name !== 'bundle' && !(i.default ?? '').includes('${{'))) {
      expect(seen[`INPUT_${input.name.toUpperCase().replace(/ /g, '_')}`], input.name).toBe(input.default ?? '');
    }
    expect(Object.keys(seen)).toContain('INPUT_RUNTIME-GROUP');
  });

  it('warns about inputs action.yml does not declare, and still passes them', async () => {
    const run = await runAction({
      ...common(),
      inputs: { bundle: 'b', extra: 'x' },
      entry: await entry('extra', 'console.log(process.env.INPUT_EXTRA)'),
    });
    expect(run.stdout.trim()).toBe('x');
    expect(run.log.split('\n')[0]).toMatch(
      /^##\[warning\]Unexpected input\(s\) 'extra', valid inputs are \['bundle', 'runtime-group'/,
    );
  });

  it("gives the runner environment and none of the caller's GITHUB_* / INPUT_* / RUNNER_* variables", async () => {
    const saved = { ...process.env };
    process.env.GITHUB_TOKEN = 'parent-token-must-not-leak';
    process.env.GITHUB_SHA = 'parent-sha';
    process.env.INPUT_BUNDLE = 'parent-bundle';
    process.env['INPUT_SNEAKY-ONE'] = 'parent-input';
    process.env.RUNNER_DEBUG = '1';
    try {
      const run = await runAction({
        ...common(),
        env: { STEP_LEVEL: 'from-env-option' },
        entry: await entry(
          'env',
          `
          import { readFileSync } from 'node:fs';
          const e = process.env;
          console.log(JSON.stringify({ env: e, cwd: process.cwd(), event: JSON.parse(readFileSync(e.GITHUB_EVENT_PATH, 'utf8')) }));`,
        ),
      });
      const { env, cwd, event } = JSON.parse(run.stdout) as {
        env: Record<string, string>;
        cwd: string;
        event: unknown;
      };
      expect(cwd).toBe(join(dir, 'ws'));
      expect(event).toEqual(EVENT.payload);
      expect(env).toMatchObject({
        GITHUB_ACTIONS: 'true',
        CI: 'true',
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_REPOSITORY: 'acme/fleet',
        GITHUB_REPOSITORY_OWNER: 'acme',
        GITHUB_SHA: 'm'.repeat(40),
        GITHUB_REF: 'refs/pull/42/merge',
        GITHUB_REF_NAME: '42/merge',
        GITHUB_HEAD_REF: 'feature',
        GITHUB_BASE_REF: 'main',
        GITHUB_WORKSPACE: join(dir, 'ws'),
        GITHUB_API_URL: 'http://127.0.0.1:9',
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_ACTOR: 'alice',
        GITHUB_RUN_ATTEMPT: '1',
        RUNNER_OS: 'Linux',
        STEP_LEVEL: 'from-env-option',
        INPUT_BUNDLE: '',
      });
      for (const name of [
        'GITHUB_RUN_ID',
        'GITHUB_JOB',
        'GITHUB_WORKFLOW',
        'RUNNER_TEMP',
        'GITHUB_OUTPUT',
        'GITHUB_STEP_SUMMARY',
        'GITHUB_ENV',
        'GITHUB_PATH',
        'GITHUB_STATE',
      ]) {
        expect(env[name], name).toBeTruthy();
      }
      expect(env.GITHUB_TOKEN).toBeUndefined();
      expect(env['INPUT_SNEAKY-ONE']).toBeUndefined();
      expect(env.RUNNER_DEBUG).toBeUndefined();
      expect(env.VITEST).toBeUndefined();
      expect(JSON.stringify(env)).not.toContain('parent-');
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  it('reads outputs in both forms, the summary, env, path and state files', async () => {
    const run = await runAction({
      ...common(),
      entry: await entry(
        'outputs',
        `
        import { appendFileSync } from 'node:fs';
        const e = process.env;
        appendFileSync(e.GITHUB_OUTPUT, 'changed=true\\n');
        appendFileSync(e.GITHUB_OUTPUT, 'changes<<ghadelimiter_1\\n{"clusters":[]}\\nsecond line\\nghadelimiter_1\\n');
        appendFileSync(e.GITHUB_STEP_SUMMARY, '## Plan\\n\\n| cluster | status |\\n');
        appendFileSync(e.GITHUB_ENV, 'FLEET_MODE=diff\\n');
        appendFileSync(e.GITHUB_PATH, '/opt/fleet/bin\\n');
        appendFileSync(e.GITHUB_STATE, 'comment_id=123\\n');`,
      ),
    });
    expect(run.conclusion).toBe('success');
    expect(run.outputs).toEqual({ changed: 'true', changes: '{"clusters":[]}\nsecond line' });
    expect(run.summary).toBe('## Plan\n\n| cluster | status |\n');
    expect(run.exportedEnv).toEqual({ FLEET_MODE: 'diff' });
    expect(run.addedPath).toEqual(['/opt/fleet/bin']);
    expect(run.state).toEqual({ comment_id: '123' });
  });

  it('fails the step on a malformed GITHUB_OUTPUT, as the runner does', async () => {
    const run = await runAction({
      ...common(),
      entry: await entry(
        'bad-output',
        `import { appendFileSync } from 'node:fs'; appendFileSync(process.env.GITHUB_OUTPUT, 'x<<EOF\\nno end\\n');`,
      ),
    });
    expect(run.exitCode).toBe(0);
    expect(run.conclusion).toBe('failure');
    expect(run.runnerErrors).toEqual(["output: matching delimiter not found 'EOF' for 'x'"]);
    expect(run.log).toContain("##[error]Unable to process file command 'output' successfully.");
  });

  it('parses annotations from both streams with escapes, renders groups, and hides debug unless asked', async () => {
    const code = `
      console.log('::group::Cluster preview-eu-1');
      console.log('::error file=bundles/apps.cue,line=12,col=3,endLine=14,title=CUE%3A conflict::apps.podinfo: conflicting values%0A"a" and "b" (100%25)');
      console.error('::warning title=Drift%2C live::replicas changed');
      console.log('::notice::applied 3 objects');
      console.log('::debug::raw kubectl output');
      console.log('::endgroup::');
      console.log('::set-output name=legacy::old style');`;
    const run = await runAction({ ...common(), entry: await entry('annotations', code) });
    // stdout and stderr are separate pipes: order is kept within a stream, not across them.
    expect(run.commands.filter((c) => c.stream === 'stdout').map((c) => c.command)).toEqual([
      'group',
      'error',
      'notice',
      'debug',
      'endgroup',
      'set-output',
    ]);
    expect(run.commands.filter((c) => c.stream === 'stderr').map((c) => c.command)).toEqual(['warning']);
    const error = run.commands.find((c) => c.command === 'error');
    const warning = run.commands.find((c) => c.command === 'warning');
    expect(error?.properties).toEqual({
      file: 'bundles/apps.cue',
      line: '12',
      col: '3',
      endLine: '14',
      title: 'CUE: conflict',
    });
    expect(error?.message).toBe('apps.podinfo: conflicting values\n"a" and "b" (100%)');
    expect(warning?.properties).toEqual({ title: 'Drift, live' });
    expect(run.outputs).toEqual({ legacy: 'old style' });
    const shown = run.log
      .split('\n')
      .filter((line) => line !== '##[warning]replicas changed' && !line.includes('set-output'));
    expect(shown).toEqual([
      '##[group]Cluster preview-eu-1',
      '##[error]apps.podinfo: conflicting values',
      '"a" and "b" (100%)',
      '##[notice]applied 3 objects',
      '##[endgroup]',
    ]);
    expect(run.log.split('\n')).toContain('##[warning]replicas changed');
    expect(run.log).not.toContain('raw kubectl output');
    expect(run.log).toMatch(/##\[warning\]The `set-output` command is deprecated/);

    const debugRun = await runAction({ ...common(), debug: true, entry: await entry('annotations', code) });
    expect(debugRun.log).toContain('##[debug]raw kubectl output');
  });

  it('masks add-mask values and the token in the log, and the leak check still sees them', async () => {
    const token = 'ghs_tokenvalue_0123456789abcdefghijkl';
    const run = await runAction({
      ...common(),
      token,
      entry: await entry(
        'mask',
        `
        console.log('::add-mask::kube-s3cr3t-value');
        console.log('password is kube-s3cr3t-value');
        console.log('token ' + process.env['INPUT_GITHUB-TOKEN']);`,
      ),
    });
    expect(run.masked).toEqual(['kube-s3cr3t-value']);
    expect(run.log).toBe('password is ***\ntoken ***');
    expect(run.log).not.toContain('kube-s3cr3t-value');
    expect(() => assertNoSecretLeak(run, ['kube-s3cr3t-value'])).toThrow(
      /secret #1 \(17 characters\) in stdout line 2/,
    );
    expect(() => assertNoSecretLeak(run, [token])).toThrow(/secret #1 .* in stdout line 3/);
    const message = (() => {
      try {
        assertNoSecretLeak(run, [token]);
        return '';
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    })();
    expect(message).not.toContain(token);
  });

  it('passes the leak check for a clean run and catches outputs, summary, encoded forms and extra texts', async () => {
    const secret = 'hunter2-very-secret';
    const clean = await runAction({
      ...common(),
      entry: await entry('clean', `console.log('::add-mask::${secret}'); console.log('nothing to see');`),
    });
    expect(() => assertNoSecretLeak(clean, [secret], ['a posted comment without it'])).not.toThrow();
    expect(() => assertNoSecretLeak(clean, [secret], [`comment with ${secret}`])).toThrow(/extra text 1/);

    const leaky = await runAction({
      ...common(),
      entry: await entry(
        'leaky',
        `
        import { appendFileSync } from 'node:fs';
        appendFileSync(process.env.GITHUB_OUTPUT, 'cfg=${secret}\\n');
        appendFileSync(process.env.GITHUB_STEP_SUMMARY, '${Buffer.from(secret).toString('base64')}\\n');`,
      ),
    });
    expect(() => assertNoSecretLeak(leaky, [secret])).toThrow(/in output 'cfg'.*in job summary/);
    expect(() => assertNoSecretLeak(leaky, [''])).toThrow(/secret #1 is empty/);
  });

  it('reports the exit code and the failure', async () => {
    const run = await runAction({
      ...common(),
      entry: await entry('fail', `console.log('::error::boom'); process.exitCode = 3;`),
    });
    expect(run.exitCode).toBe(3);
    expect(run.conclusion).toBe('failure');
    const thrown = await runAction({
      ...common(),
      entry: await entry('throw', `throw new Error('unhandled in action')`),
    });
    expect(thrown.exitCode).toBe(1);
    expect(thrown.stderr).toContain('unhandled in action');
  });

  it('kills an action that outlives timeoutMs', async () => {
    const started = Date.now();
    const run = await runAction({
      ...common(),
      timeoutMs: 3000,
      entry: await entry('hang', `console.log('waiting'); setInterval(() => {}, 1000);`),
    });
    expect(run.timedOut).toBe(true);
    expect(run.signal).toBe('SIGKILL');
    expect(run.conclusion).toBe('failure');
    expect(run.stdout).toBe('waiting\n');
    expect(run.log).toBe('waiting\n##[error]The action has timed out after 3000 ms.');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('removes its temporary runner files unless asked to keep them', async () => {
    const run = await runAction({
      ...common(),
      entry: await entry('paths', 'console.log(process.env.GITHUB_EVENT_PATH)'),
    });
    await expect(readFile(run.stdout.trim(), 'utf8')).rejects.toThrow(/ENOENT/);
    const kept = await runAction({
      ...common(),
      keepTemp: true,
      entry: await entry('paths', 'console.log(process.env.GITHUB_EVENT_PATH)'),
    });
    expect(JSON.parse(await readFile(kept.stdout.trim(), 'utf8'))).toEqual(EVENT.payload);
  });

  it('splits lines at LF, CRLF and CR, and decodes UTF-8 across chunk boundaries', async () => {
    const run = await runAction({
      ...common(),
      entry: await entry(
        'utf8',
        `
        process.stdout.write('a\\r\\nb\\rc\\n');
        const line = 'ü🚀'.repeat(5000);
        for (let i = 0; i < 20; i++) process.stdout.write(line + '\\n');
        process.stdout.write('tail without newline');`,
      ),
    });
    const texts = run.lines.map((l) => l.text);
    expect(texts.slice(0, 3)).toEqual(['a', 'b', 'c']);
    expect(texts.slice(3, 23).every((t) => t === 'ü🚀'.repeat(5000))).toBe(true);
    expect(texts.at(-1)).toBe('tail without newline');
    expect(texts).toHaveLength(24);
  });

  it('refuses a missing entry with the path in the message', async () => {
    await expect(runAction({ ...common(), entry: join(dir, 'missing.mjs') })).rejects.toThrow(
      /missing\.mjs does not exist/,
    );
  });
});
