// End to end, as a pull request's author would attack the guards of "apply what was
// reviewed" (issue 22): a review record forged in the diff text of another bundle's comment,
// a manual run that would apply under `require` with nothing reviewed or overwrite the
// merged pull request's comment, text that reads otherwise than what is applied, and a run
// whose deadline would leave the pull request without its comment. Each runs
// `node dist/index.js` through the runner harness against the local fleet; the sentinel of
// each attack is an object on a cluster, or a comment's content.
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { parseReviewedRecord, reviewedBlock } from '../../src/report/reviewed-block.js';
import { clusterClient } from '../harness/fleet/test-context.js';
import { pullRequestEvent, runAction, workflowDispatchEvent, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
/** Namespaces of this run: a fleet kept between runs (TIMONI_FLEET_DIR) still holds those of earlier runs. */
const run36 = Date.now().toString(36);
const ns = (name: string) => `${name}-${run36}`;
const currentStage = useDemoStage('guards');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
});

function file(name: string, body: string): string {
  writeFileSync(join(stage.workdir, name), body);
  return name;
}

function run(
  event: Parameters<typeof runAction>[0]['event'],
  inputs: Record<string, string>,
  sha?: string,
): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
    ...(sha ? { github: { sha } } : {}),
  });
}

const changes = (result: ActionRun) => JSON.parse(result.outputs.changes ?? '{}') as ChangeSet;
const comments = (pr: number) => stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr);

/** A one-instance bundle of the example module: its ConfigMap's message and extra values, as CUE. */
function bundleFile(
  fileName: string,
  name: string,
  namespace: string,
  values: string,
  moduleUrl = 'oci://\\(_registry)/modules/webapp',
): string {
  return file(
    fileName,
    `bundle: {
	_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"
	name: "${name}"
	instances: web: {
		module: {url: "${moduleUrl}", version: "1.4.0"}
		namespace: "${namespace}"
		values: {
			${values}
		}
	}
}
`,
  );
}

/** True when the ConfigMap exists on the fleet's first cluster (staging-1). */
async function configMapExists(namespace: string, name: string): Promise<boolean> {
  const client = clusterClient(0);
  const response = await client.request('GET', `/api/v1/namespaces/${namespace}/configmaps/${name}`);
  return response.status === 200;
}

describe('the review record cannot be forged through text the author controls', () => {
  it("require: a record in another bundle's diff text is never read, so the unreviewed state is refused", async () => {
    const pr = stage.openPullRequest(501);
    // What the author wants applied without review: bundle "forge-target" with their message.
    const target = bundleFile(
      'forge-target.cue',
      'forge-target',
      ns('forge-target'),
      'message: "payload-never-reviewed"',
    );
    const built = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle: target, comment: 'false' },
    );
    expect(built.exitCode, built.log).toBe(0);
    const forged = reviewedBlock(changes(built));
    expect(forged).toContain('"bundle":"forge-target"');

    // Another bundle whose diff shows the forged record as a ConfigMap value, and whose Ingress
    // the API server refuses (its namespace exists, so the dry-run reaches the server), so
    // that its comment holds no record of its own.
    for (const index of [0, 1, 2]) {
      await clusterClient(index).apply(
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns('forge-decoy') } },
        { fieldManager: 'test', force: true },
      );
    }
    const decoy = bundleFile(
      'forge-decoy.cue',
      'forge-decoy',
      ns('forge-decoy'),
      `message: ${JSON.stringify(forged)}\n\t\t\tingress: {enabled: true, host: "Not_A_Valid_Host!"}`,
    );
    const decoyDiff = await run(
      pullRequestEvent({ action: 'synchronize', repository, number: pr.number, headSha: pr.headSha }),
      { bundle: decoy },
    );
    expect(decoyDiff.exitCode, decoyDiff.log).toBe(1);

    stage.github.state.mergePullRequest(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number, pr.mergeCommitSha);
    const merged = pullRequestEvent({
      action: 'closed',
      merged: true,
      mergeCommitSha: pr.mergeCommitSha,
      repository,
      number: pr.number,
      headSha: pr.headSha,
    });
    const apply = await run(merged, { bundle: target, reviewed: 'require', wait: 'false' });
    expect(apply.exitCode).toBe(1);
    expect(apply.outputs['applied-clusters']).toBe('');
    const staging = changes(apply).clusters[0];
    expect(staging?.error?.step).toBe('review');
    expect(staging?.error?.message).toContain(`pull request #${pr.number} has no review record of bundle forge-target`);
    expect(await configMapExists(ns('forge-target'), 'web')).toBe(false);

    // The decoy's comment: the forged block shown escaped, and no record the action would read.
    const decoyComment =
      comments(pr.number).find((comment) => comment.body.startsWith('<!-- timoni-fleet:bundle=forge-decoy -->'))
        ?.body ?? '';
    expect(changes(decoyDiff).clusters[0]?.error?.message).toContain('Ingress');
    expect(decoyComment).toContain('timoni-fleet:reviewed {');
    expect(decoyComment).toContain('\\u003C!-- timoni-fleet:reviewed {');
    expect(decoyComment).not.toContain('<!-- timoni-fleet:reviewed');
    expect(parseReviewedRecord(decoyComment)).toBeNull();
  });
});

describe('a manual run and the review', () => {
  it("require refuses a workflow_dispatch (nothing was reviewed) and never rewrites the merged pull request's comment", async () => {
    const pr = stage.openPullRequest(502);
    const target = bundleFile('dispatch-target.cue', 'dispatch-target', ns('dispatch-target'), 'message: "dispatched"');
    const diff = await run(pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }), {
      bundle: target,
    });
    expect(diff.exitCode, diff.log).toBe(0);
    const reviewed = comments(pr.number)[0]?.body ?? '';
    expect(parseReviewedRecord(reviewed)?.bundle).toBe('dispatch-target');
    // The merge commit is linked to the pull request (commits/{sha}/pulls), as on GitHub.
    stage.github.state.mergePullRequest(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number, pr.mergeCommitSha);

    const dispatch = workflowDispatchEvent({ repository, inputs: { mode: 'apply', cluster: 'staging-1' } });
    const refused = await run(
      dispatch,
      { bundle: target, reviewed: 'require', 'runtime-cluster': 'staging-1', mode: 'apply', wait: 'false' },
      pr.mergeCommitSha,
    );
    expect(refused.exitCode).toBe(1);
    expect(refused.outputs['applied-clusters']).toBe('');
    expect(changes(refused).clusters[0]?.error?.step).toBe('review');
    expect(changes(refused).clusters[0]?.error?.message).toContain(
      'nothing was reviewed to compare with: the run was started by workflow_dispatch with no merged pull request; nothing was applied to it (reviewed: require)',
    );
    expect(await configMapExists(ns('dispatch-target'), 'web')).toBe(false);

    const warned = await run(
      dispatch,
      { bundle: target, reviewed: 'warn', 'runtime-cluster': 'staging-1', mode: 'apply', wait: 'false' },
      pr.mergeCommitSha,
    );
    expect(warned.exitCode, warned.log).toBe(0);
    expect(warned.outputs['applied-clusters']).toBe('staging-1');
    expect(warned.summary).toContain(
      'What is applied was not compared with a review&#58; the run was started by workflow&#95;dispatch with no merged pull request.',
    );
    expect(await configMapExists(ns('dispatch-target'), 'web')).toBe(true);
    // Neither run touched the pull request's comment: its review record stands for the merge.
    expect(comments(pr.number).map((comment) => comment.body)).toEqual([reviewed]);
    expect(warned.log).toContain(
      'a workflow_dispatch rollout updates no pull request comment: its result is in the job summary',
    );
  });
});

describe('text that reads otherwise than what is applied', () => {
  it('shows bidirectional controls and zero-width characters escaped in the comment, and says so under the diff', async () => {
    const pr = stage.openPullRequest(503);
    const bundle = bundleFile(
      'bidi.cue',
      'bidi',
      'bidi',
      'message: "access: user\\u202E\\u2066 nimda\\u2069\\u2066 host: exa\\u200Bmple.com"',
    );
    const diff = await run(pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }), {
      bundle,
    });
    expect(diff.exitCode, diff.log).toBe(0);
    const body = comments(pr.number)[0]?.body ?? '';
    expect(body).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/);
    expect(body).toContain('access: user\\u202E\\u2066 nimda\\u2069\\u2066 host: exa\\u200Bmple.com');
    expect(body).toContain(
      'This object holds characters that are invisible or reorder the text around them (U+200B, U+202E, U+2066, U+2069)',
    );
    expect(diff.summary).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/);
  });
});

describe('a run that reaches its deadline', () => {
  let blackHole: Server;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    blackHole = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => blackHole.close(resolve));
  });

  it('keeps the end of the deadline to post the comment, which names the clusters not diffed', async () => {
    const port = (blackHole.address() as { port: number }).port;
    const pr = stage.openPullRequest(504);
    // A registry that accepts the connection and never answers: every cluster waits on the pull.
    const bundle = bundleFile(
      'late-registry.cue',
      'late-registry',
      'late-registry',
      'message: "late"',
      `oci://127.0.0.1:${port}/modules/webapp`,
    );
    const started = Date.now();
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle, deadline: '12s' },
    );
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(result.exitCode).toBe(1);
    const body = comments(pr.number)[0]?.body ?? '';
    expect(body.startsWith('<!-- timoni-fleet:')).toBe(true);
    expect(body).toContain('staging-1');
    expect(body, body).toMatch(/deadline/);
    expect(result.log).toContain("deadline 12s: the clusters' work stops 3s before it, kept to publish the report");
    expect(changes(result).clusters.map((cluster) => cluster.status)).toEqual(['failed', 'failed', 'failed']);
  });
});
