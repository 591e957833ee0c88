// End to end, as a pull request's author would try it through the action (`node dist/index.js`
// in the runner harness) on the local fleet: a bundle that adds, in its own namespace, a
// Secret labelled and shaped like Timoni's record of another team's instance. The pull
// request's comment shows that object refused, with the reason; once merged, the apply
// applies nothing to the first cluster and reaches no other. (The reads of such records,
// and the history and identity records, are tried through the CLI: cli-records.test.ts.)
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterClient } from '../harness/fleet/test-context.js';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('recs');
const suffix = randomBytes(4).toString('hex');
const namespace = `recs-a-${suffix}`;
const otherNamespace = `recs-b-${suffix}`;
let stage: DemoStage;

const MODULE = {
  'cue.mod/module.cue': `module: "example.com/records"\nlanguage: version: "v0.17.1"\n`,
  'values.cue': `package main\n\nvalues: message: string | *"hello"\n`,
  'timoni.cue': `package main

values: {
	message: string | *"hello"
	extra: [string]: {...}
}

timoni: {
	apiVersion: "v1alpha1"
	instance: {
		name:      string @tag(name)
		namespace: string @tag(namespace)
		mv:        string @tag(mv, var=moduleVersion)
		kv:        string @tag(kv, var=kubeVersion)
	}
	apply: app: [
		{
			apiVersion: "v1"
			kind:       "ConfigMap"
			metadata: {name: timoni.instance.name, namespace: timoni.instance.namespace}
			data: message: values.message
		},
		for _, obj in values.extra {obj},
	]
}
`,
};

/** `data.instance` of a record naming team B's instance (billing), with team A's bundle label. */
const forgedInstance = Buffer.from(
  JSON.stringify({
    kind: 'Instance',
    apiVersion: 'timoni.sh/v1alpha1',
    metadata: { name: 'billing', namespace: otherNamespace, labels: { 'bundle.timoni.sh/name': 'recs-a' } },
    module: { name: 'example.com/webapp', repository: 'file', version: '0.0.0', digest: 'unknown' },
    values: '{}',
    inventory: { entries: [{ id: `${otherNamespace}_billing__ConfigMap`, v: 'v1' }] },
  }),
).toString('base64');

const BUNDLE = `bundle: {
	apiVersion: "v1alpha1"
	name:       "recs-a"
	instances: front: {
		module: url: "file://./records"
		namespace: "${namespace}"
		values: extra: record: {
			apiVersion: "v1", kind: "Secret", type: "timoni.sh/instance"
			metadata: {
				name: "timoni.billing", namespace: "${namespace}"
				labels: {
					"app.kubernetes.io/name": "billing", "app.kubernetes.io/component": "instance"
					"app.kubernetes.io/created-by": "timoni", "bundle.timoni.sh/name": "recs-a"
				}
			}
			data: instance: "${forgedInstance}"
		}
	}
}
`;

beforeAll(() => {
  stage = currentStage();
  for (const [path, text] of Object.entries(MODULE)) {
    mkdirSync(join(stage.workdir, 'records', path, '..'), { recursive: true });
    writeFileSync(join(stage.workdir, 'records', path), text);
  }
  writeFileSync(join(stage.workdir, 'recs-a.cue'), BUNDLE);
  return async () => {
    for (const index of [0, 1, 2])
      await clusterClient(index)
        .delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace })
        .catch(() => undefined);
  };
});

function run(event: Parameters<typeof runAction>[0]['event']): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, bundle: 'recs-a.cue', wait: 'false' },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

const REASON =
  'refused: a bundle may not apply an object that has the name or labels of a Timoni instance record, which timoni-fleet and Timoni read back';

describe('a bundle object shaped like a Timoni instance record', () => {
  it('is refused in the diff with its reason, and once merged nothing is applied to the cluster', async () => {
    const pr = stage.openPullRequest(3100);
    const opened = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
    );
    expect(opened.exitCode, opened.log).toBe(1);
    const comments = stage.github.state
      .comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number)
      .map((comment) => comment.body)
      .join('\n');
    expect(comments).toContain(`Secret/${namespace}/timoni.billing`);
    expect(comments).toContain(REASON);
    expect(opened.log).toContain(`Secret/${namespace}/timoni.billing: ${REASON}`);

    const merged = await run(
      pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
    );
    expect(merged.exitCode, merged.log).toBe(1);
    expect(merged.log).toContain(`Secret/${namespace}/timoni.billing: ${REASON}`);
    expect(merged.log).toContain('rollout stopped at cluster staging-1; not reached: production-eu, production-us');
    const changes = JSON.parse(merged.outputs.changes ?? '{}') as {
      clusters: Array<{ name: string; status: string; error: { step: string; message: string } | null }>;
    };
    expect(changes.clusters.map((c) => [c.name, c.status, c.error?.step ?? null])).toEqual([
      ['staging-1', 'failed', 'reserved'],
      ['production-eu', 'skipped', null],
      ['production-us', 'skipped', null],
    ]);
    expect(changes.clusters[0]!.error?.message).toContain('nothing was applied to cluster staging-1');
    expect(merged.log).not.toContain('applying module');
    expect(merged.outputs['applied-clusters'] ?? '').toBe('');
    // Nothing reached any cluster: the instance's namespace was never created.
    const namespaces = await Promise.all(
      [0, 1, 2].map((index) =>
        clusterClient(index).getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: namespace }),
      ),
    );
    expect(namespaces).toEqual([null, null, null]);
  });
});
