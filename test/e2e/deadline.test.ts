// End to end, the run's time limits: a cluster whose API server accepts connections and never
// answers fails within its time limit (not the client's request timeout), and a CUE
// evaluation that loops is ended by the deadline watchdog with one clear annotation, although
// it holds the event loop.
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('late');
let stage: DemoStage;
let blackHole: Server;
const sockets: Socket[] = [];
let blackHolePort = 0;

beforeAll(async () => {
  stage = currentStage();
  blackHole = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  blackHolePort = (blackHole.address() as { port: number }).port;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => blackHole.close(resolve));
});

function file(name: string, body: string): string {
  writeFileSync(join(stage.workdir, name), body);
  return name;
}

function run(
  event: Parameters<typeof runAction>[0]['event'],
  inputs: Record<string, string>,
  env: Record<string, string> = {},
): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: { ...stage.env, ...env },
    timeoutMs: 110_000,
  });
}

describe('time limits of a run', () => {
  it('fails a black-holed cluster within its time limit and stops the rollout there', async () => {
    const blackHoleKubeconfig = stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'hole', cluster: { server: `https://127.0.0.1:${blackHolePort}`, 'insecure-skip-tls-verify': true } },
      ],
      users: [{ name: 'hole', user: { token: 'black-hole-token-1234' } }],
      contexts: [{ name: 'hole', context: { cluster: 'hole', user: 'hole' } }],
    });
    const runtime = file(
      'late-runtime.cue',
      `runtime: {
	apiVersion: "v1alpha1"
	name: "late"
	clusters: {
		"staging-hole": {group: "staging", kubeContext: "hole"}
		"production-eu": {group: "production", kubeContext: "fleet-2"}
	}
}
`,
    );
    const pr = stage.openPullRequest(301);
    stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
    const started = Date.now();
    const result = await run(
      pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
      {
        runtime,
        kubeconfig: `${stage.kubeconfig}\n---\n${blackHoleKubeconfig}`,
        timeout: '3s',
      },
    );
    const elapsed = Date.now() - started;
    expect(result.exitCode).toBe(1);
    expect(result.outputs['failed-cluster']).toBe('staging-hole');
    const changeSet = JSON.parse(result.outputs.changes ?? '{}') as {
      clusters: Array<{ name: string; status: string; error: { step: string; message: string } | null }>;
    };
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-hole', 'failed'],
      ['production-eu', 'skipped'],
    ]);
    expect(changeSet.clusters[0]?.error?.message).toMatch(/did not finish within its time limit|no answer/);
    // 3 s of time limit and 2 s of grace; the client's own request timeout (30 s) is not waited for.
    expect(elapsed).toBeLessThan(15_000);
  });

  // The WebAssembly engine runs on the main thread: only the watchdog's last resort ends it.
  // (The native engine is stopped at the reserve and the run reports it: deadline-truth.test.ts.)
  it('ends a WebAssembly CUE evaluation that loops past the deadline with one clear annotation', async () => {
    const bundle = file(
      'late-loop.cue',
      `import "list"

bundle: {
	_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"
	name: "late-loop"
	instances: web: {
		module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}
		namespace: "late"
		values: message: "\\(len(list.Range(0, 400000000, 1)))"
	}
}
`,
    );
    const pr = stage.openPullRequest(302);
    const started = Date.now();
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle, deadline: '4s' },
      { TIMONI_FLEET_CUE_ENGINE: 'wasm' },
    );
    const elapsed = Date.now() - started;
    expect(result.conclusion).toBe('failure');
    expect(result.timedOut).toBe(false);
    const errors = result.commands.filter((c) => c.command === 'error');
    expect(errors.map((c) => c.properties.title)).toContain('timoni-fleet deadline');
    expect(errors.find((c) => c.properties.title === 'timoni-fleet deadline')?.message).toContain(
      'the run passed its deadline (4 s) while the CUE engine was evaluating',
    );
    expect(result.stderr).not.toContain('goroutine');
    expect(elapsed).toBeLessThan(30_000);
  });
});

describe('a GitHub API that never answers', () => {
  it('holds the step no longer than the deadline, and the run still ends with its summary', async () => {
    stage.github.state.forceError({ hang: true, path: /\/issues\/\d+\/comments$/, times: 1 });
    const pr = stage.openPullRequest(304);
    const started = Date.now();
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { deadline: '8s' },
    );
    const elapsed = Date.now() - started;
    // The diff's comment could not be posted: the step fails, saying why.
    expect(result.exitCode, result.log).toBe(1);
    expect(elapsed).toBeLessThan(20_000);
    const error = result.commands.find((c) => c.command === 'error' && c.properties.title === 'PR comment not posted');
    expect(error?.message).toMatch(
      new RegExp(
        `^The comment on pull request #${pr.number} could not be posted: .*(the run passed its deadline|no answer within)`,
      ),
    );
    expect(result.summary).toContain('staging-1');
  });
});

describe('the CUE engine memory ceiling', () => {
  it('stops an evaluation that grows past cue-memory-limit with one clear error and no goroutine dump', async () => {
    const bundle = file(
      'late-grow.cue',
      `import "list"

bundle: {
	_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"
	name: "late-grow"
	instances: web: {
		module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}
		namespace: "late"
		values: message: "\\(len(list.Range(0, 200000000, 1)))"
	}
}
`,
    );
    const pr = stage.openPullRequest(303);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle, 'cue-memory-limit': '256', deadline: '90s' },
    );
    expect(result.exitCode, result.log).toBe(1);
    const messages = result.commands
      .filter((c) => c.command === 'error')
      .map((c) => c.message)
      .join('\n');
    expect(messages).toContain(
      "the CUE evaluation needed more than the CUE engine's memory limit of 256 MiB (cue-memory-limit)",
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain('goroutine');
    expect(result.stderr.split('\n').length).toBeLessThan(10);
  });
});
