// End to end, the action as the runner runs it (`node dist/index.js`) on a pull request:
// a user's mistake becomes an error annotation on the user's own file and line. A typo in
// an instance's values is annotated on the bundle line the value is on (found in the file's
// text here), not on a line of the values.cue the build makes up; an error of the bundle
// itself is annotated and logged once, not once per cluster, without the internal schema file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('action-errors');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
});

function bundleFile(name: string, body: string): string {
  writeFileSync(join(stage.workdir, name), body);
  return name;
}

/** The line and column (1-based, a tab one column) of the first occurrence of `text` in the stage's file. */
function placeOf(file: string, text: string): { line: string; col: string } {
  const lines = readFileSync(join(stage.workdir, file), 'utf8').split('\n');
  const index = lines.findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`${text} is not in ${file}`);
  return { line: String(index + 1), col: String((lines[index] as string).indexOf(text) + 1) };
}

function diff(file: string, number: number): Promise<ActionRun> {
  const pr = stage.openPullRequest(number);
  return runAction({
    event: pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, bundle: file },
    env: stage.env,
    timeoutMs: 110_000,
    keepTemp: true,
  });
}

const header = `_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	apiVersion: "v1alpha1"`;
const moduleBlock = `module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}`;

describe("the action annotates the user's own line", () => {
  it('a typo in instance values: on the bundle line the value is on', async () => {
    const file = bundleFile(
      'typo.cue',
      `bundle: {
	${header}
	name: "typo"
	instances: web: {
		${moduleBlock}
		namespace: "action-errors"
		values: {
			message: "hi"
			if _group == "staging" {
				replcas: 1
			}
		}
	}
}
`,
    );
    const result = await diff(file, 31);
    expect(result.exitCode).toBe(1);
    const errors = result.commands.filter((c) => c.command === 'error');
    const onTypo = errors.filter((c) => c.properties.file !== undefined);
    // Staging only sets it: one cluster, one annotation (not one per object copying the config).
    expect(onTypo).toHaveLength(1);
    expect(onTypo[0]?.properties).toMatchObject({ file: 'typo.cue', ...placeOf('typo.cue', 'replcas') });
    expect(onTypo[0]?.properties.title).toContain('values.replcas');
    expect(result.stdout).not.toMatch(/\.\/values\.cue:\d+/);
  });

  it('an error of the bundle itself: once, in words, before any cluster', async () => {
    const file = bundleFile(
      'misspelled.cue',
      `bundle: {
	${header}
	name: "misspelled"
	instaces: web: {
		${moduleBlock}
		namespace: "action-errors"
		values: {}
	}
}
`,
    );
    const result = await diff(file, 32);
    expect(result.exitCode).toBe(1);
    const errors = result.commands.filter((c) => c.command === 'error' && c.properties.file !== undefined);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.properties).toMatchObject({ file: 'misspelled.cue', ...placeOf('misspelled.cue', 'instaces') });
    expect(errors[0]?.message).toContain('a bundle has the fields apiVersion, name and instances');
    // The log tells it once: the annotation on its line (each cluster's own failure, titled by the cluster, aside).
    expect(result.stdout.split('\n').filter((line) => line.includes('bundle.instaces'))).toHaveLength(1);
    expect(result.stdout).not.toMatch(/bundle-schema|failed to load cluster/);
  });

  it("an error of the bundle itself on merge: told before any cluster's group, annotated once in all", async () => {
    const file = bundleFile(
      'misspelled-merge.cue',
      `bundle: {
	${header}
	name: "misspelled-merge"
	instaces: web: {
		${moduleBlock}
		namespace: "action-errors"
		values: {}
	}
}
`,
    );
    const pr = stage.openPullRequest(33);
    stage.github.state.mergePullRequest(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number, pr.mergeCommitSha);
    const result = await runAction({
      event: pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
      githubApiUrl: stage.github.url,
      token: stage.github.token,
      workdir: stage.workdir,
      inputs: { ...stage.inputs, bundle: file },
      env: stage.env,
      timeoutMs: 110_000,
    });
    expect(result.exitCode).toBe(1);
    const told = result.stdout.indexOf('bundle.instaces');
    const firstGroup = result.stdout.indexOf('::group::');
    expect(told).toBeGreaterThan(-1);
    expect(firstGroup === -1 || told < firstGroup).toBe(true);
    expect(result.commands.filter((c) => c.command === 'error')).toHaveLength(1);
  });

  /** The stage's kubeconfig with production-us's API server moved to a port where nothing listens. */
  function unreachableProductionUs(): string {
    const kubeconfig = stage.inputs.kubeconfig ?? '';
    const servers = [...kubeconfig.matchAll(/server: (\S+)/g)].map((m) => m[1] as string);
    if (servers.length !== 3)
      throw new Error(`the demo kubeconfig has ${servers.length} servers, not 3; update this test`);
    return kubeconfig.replace(servers[2] as string, 'https://127.0.0.1:1');
  }

  it('a cluster that cannot be reached: one error annotation with a title, its reason said once', async () => {
    const pr = stage.openPullRequest(34);
    const result = await runAction({
      event: pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      githubApiUrl: stage.github.url,
      token: stage.github.token,
      workdir: stage.workdir,
      inputs: { ...stage.inputs, kubeconfig: unreachableProductionUs() },
      env: stage.env,
      timeoutMs: 110_000,
    });
    expect(result.exitCode).toBe(1);
    const errors = result.commands.filter((c) => c.command === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.properties.title).toContain('cluster production-us');
    expect(errors[0]?.message).toContain('cannot reach the API server at https://127.0.0.1:1');
    // Nowhere else in the log (the retries name the request, not the failure), and not "cannot reach" twice.
    expect(result.stdout.split('\n').filter((line) => line.includes('cannot reach'))).toHaveLength(1);
    expect(errors[0]?.message).not.toMatch(/cannot reach .*cannot reach/);
  });

  it('mode: status with a cluster that cannot be reached: the table is published, the step fails, the reason said once', async () => {
    const pr = stage.openPullRequest(35);
    const result = await runAction({
      event: pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      githubApiUrl: stage.github.url,
      token: stage.github.token,
      workdir: stage.workdir,
      inputs: { ...stage.inputs, kubeconfig: unreachableProductionUs(), mode: 'status' },
      env: stage.env,
      timeoutMs: 110_000,
    });
    expect(result.exitCode).toBe(1);
    const status = JSON.parse(result.outputs.status ?? '{}') as {
      instances: Array<{ cluster: string; state: string; reason: string }>;
    };
    const unreachable = status.instances.filter((row) => row.cluster === 'production-us');
    expect(unreachable.length).toBeGreaterThan(0);
    expect(
      unreachable.every(
        (row) => row.state === 'unknown' && /^cannot reach the API server at https:\/\/127\.0\.0\.1:1/.test(row.reason),
      ),
    ).toBe(true);
    expect(
      status.instances.filter((row) => row.cluster !== 'production-us').every((row) => row.state !== 'unknown'),
    ).toBe(true);
    const errors = result.commands.filter((c) => c.command === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.message).toContain('cluster production-us: cannot reach the API server');
    expect(result.commands.filter((c) => c.command === 'warning')).toHaveLength(0);
    expect(result.summary).toContain('production-us');
  });
});
