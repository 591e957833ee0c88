// End to end, the hard cases: a cluster that fails stops the rollout before production;
// a secret value is never printed; a diff too large for one comment still fits; GitHub
// failing to take the comment.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterClient } from '../harness/fleet/test-context.js';
import { assertNoSecretLeak, pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('edges');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
});

function bundleFile(name: string, body: string): string {
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
    keepTemp: true,
  });
}

const moduleBlock = `module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}`;
const header = `_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	_group: string @timoni(runtime:string:TIMONI_CLUSTER_GROUP)
	apiVersion: "v1alpha1"`;

describe('the action when things go wrong', () => {
  it('stops a rollout at a failing staging cluster and leaves production untouched', async () => {
    const file = bundleFile(
      'broken.cue',
      `bundle: {
	${header}
	name: "broken"
	instances: web: {
		${moduleBlock}
		namespace: "edges-broken"
		values: {
			if _group == "staging" {replicas: -1}
		}
	}
}
`,
    );
    const pr = stage.openPullRequest(21);
    stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
    const result = await run(
      pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
      { bundle: file },
    );
    expect(result.exitCode).toBe(1);
    expect(result.outputs['failed-cluster']).toBe('staging-1');
    expect(result.outputs['applied-clusters']).toBe('');
    const changeSet = JSON.parse(result.outputs.changes ?? '{}') as {
      clusters: Array<{ name: string; status: string; error: { step: string } | null }>;
    };
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'failed'],
      ['production-eu', 'skipped'],
      ['production-us', 'skipped'],
    ]);
    expect(changeSet.clusters[0]?.error?.step).toBe('build');
    expect(result.summary).toContain('production-eu');
    for (const cluster of [1, 2]) {
      const namespace = await clusterClient(cluster).getOrNull({
        apiVersion: 'v1',
        kind: 'Namespace',
        name: 'edges-broken',
      });
      expect(namespace, `cluster ${cluster + 1} must not be touched`).toBeNull();
    }
  });

  it('never prints a secret value from the environment, and says a secret changed', async () => {
    const secret = 's3cr3t-shop-t0ken-value';
    const file = bundleFile(
      'secretive.cue',
      `bundle: {
	${header}
	name: "secretive"
	instances: web: {
		${moduleBlock}
		namespace: "edges"
		values: message: string @timoni(runtime:string:SHOP_TOKEN)
	}
}
`,
    );
    const pr = stage.openPullRequest(22);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle: file },
      { SHOP_TOKEN: secret },
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(result.masked).toContain(secret);
    const comments = stage.github.state
      .comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number)
      .map((c) => c.body);
    expect(comments).toHaveLength(1);
    expect(comments[0]).toContain('secret value changed');
    assertNoSecretLeak(result, [secret], comments);
  });

  it('keeps a diff too large for one comment under the comment limit of GitHub, with the table complete', async () => {
    const file = bundleFile(
      'large.cue',
      `import "list"

bundle: {
	${header}
	name: "large"
	instances: {
		for i in list.Range(0, 4, 1) {
			"web-\\(i)": {
				${moduleBlock}
				namespace: "edges-large"
				values: message: ("line \\(i) of a long configuration value that makes every diff big\\n" * 700)
			}
		}
	}
}
`,
    );
    const pr = stage.openPullRequest(23);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle: file },
    );
    expect(result.exitCode, result.log).toBe(0);
    const [body] = stage.github.state
      .comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number)
      .map((c) => c.body);
    expect(body).toBeDefined();
    expect([...(body ?? '')].length).toBeLessThanOrEqual(65_536);
    for (const cluster of ['staging-1', 'production-eu', 'production-us']) expect(body).toContain(cluster);
    expect(body).toMatch(/\d+ diffs? (cut|not shown)/);
    // The whole ChangeSet is in the changes-file; the `changes` output stays under its cap
    // (GitHub documents 1 MB per output) and says what it left out.
    type Output = { truncated?: string; clusters: Array<{ instances: Array<{ changes: Array<{ diff: string }> }> }> };
    const whole = JSON.parse(readFileSync(result.outputs['changes-file'] ?? '', 'utf8')) as Output;
    expect(whole.clusters.map((c) => c.instances.length)).toEqual([4, 4, 4]);
    const fullDiffs = whole.clusters
      .flatMap((c) => c.instances.flatMap((i) => i.changes.map((ch) => ch.diff.length)))
      .reduce((a, b) => a + b, 0);
    expect(fullDiffs).toBeGreaterThan(512 * 1024);
    const output = result.outputs.changes ?? '';
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(512 * 1024);
    const capped = JSON.parse(output) as Output;
    expect(capped.truncated).toMatch(
      /diffs left out: the ChangeSet has \d+ bytes, over the 524288 of this output; the whole of it is in .*timoni-fleet-changes-large-/,
    );
    expect(capped.clusters.map((c) => c.instances.length)).toEqual([4, 4, 4]);
  });

  it('posts its comment through a 502 from GitHub, reports a comment update GitHub keeps refusing, and fails only the diff', async () => {
    const file = bundleFile(
      'commented.cue',
      `bundle: {
	${header}
	name: "commented"
	instances: web: {
		${moduleBlock}
		namespace: "edges-commented"
	}
}
`,
    );
    const pr = stage.openPullRequest(25);
    const comments = () => stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number);
    stage.github.state.forceError({ status: 502, method: 'POST', path: /\/issues\/25\/comments$/, times: 1 });
    const opened = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle: file },
    );
    expect(opened.exitCode, opened.log).toBe(0);
    expect(comments()).toHaveLength(1);
    const posted = comments()[0]?.body;

    stage.github.state.forceError({ status: 502, method: 'PATCH', path: /\/issues\/comments\/\d+$/, times: 3 });
    const synchronized = await run(
      pullRequestEvent({ action: 'synchronize', repository, number: pr.number, headSha: pr.headSha }),
      { bundle: file },
    );
    expect(synchronized.exitCode, synchronized.log).toBe(1);
    const error = synchronized.commands.find(
      (c) => c.command === 'error' && c.properties.title === 'PR comment not posted',
    );
    expect(error?.message).toMatch(
      /^The comment on pull request #25 could not be posted: GitHub API PATCH \/repos\/acme\/shop-deploy\/issues\/comments\/\d+ answered 502: Server Error/,
    );
    expect(synchronized.summary).toMatch(/pull request (#|&#35;)25 could not be posted/);
    expect(synchronized.outputs['comment-url']).toBe('');
    expect(comments().map((c) => c.body)).toEqual([posted]);

    stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
    stage.github.state.forceError({ status: 502, method: 'PATCH', path: /\/issues\/comments\/\d+$/, times: 3 });
    const merged = await run(
      pullRequestEvent({
        action: 'closed',
        merged: true,
        mergeCommitSha: pr.mergeCommitSha,
        repository,
        number: pr.number,
        headSha: pr.headSha,
      }),
      { bundle: file, wait: 'false' },
    );
    expect(merged.exitCode, merged.log).toBe(0);
    expect(merged.outputs['applied-clusters']).toBe('staging-1,production-eu,production-us');
    const warning = merged.commands.find(
      (c) => c.command === 'warning' && c.properties.title === 'PR comment not posted',
    );
    expect(warning?.message).toMatch(
      /^The comment on pull request #25 could not be posted: .*answered 502: Server Error; the rollout is not affected/,
    );
    expect(merged.commands.filter((c) => c.command === 'error')).toEqual([]);
  });

  it('turns a CUE error in the bundle into an annotation on its file and line, and fails', async () => {
    const file = bundleFile(
      'invalid.cue',
      `bundle: {
	apiVersion: "v1beta1"
	name:       "invalid"
	instances: web: {
		module: url: "oci://example.com/modules/webapp"
		namespace: "edges"
	}
}
`,
    );
    const pr = stage.openPullRequest(24);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle: file },
    );
    expect(result.exitCode).toBe(1);
    const annotations = result.commands.filter((c) => c.command === 'error' && c.properties.file === 'invalid.cue');
    expect(annotations.length).toBeGreaterThan(0);
    expect(annotations[0]?.properties.line).toBe('2');
    expect(annotations[0]?.message).toContain('v1beta1');
  });
});
