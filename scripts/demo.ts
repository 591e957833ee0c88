// `npm run demo`: the action's main job on a local demo fleet, as GitHub would run it.
// It starts three real clusters (staging-1, production-eu, production-us), a real OCI
// registry holding the example module, and the GitHub API stand-in; then it runs
// `node dist/index.js` for a pull request (diff, PR comment) and for its merge (rollout
// in runtime order, job summary, comment updated), and prints where everything went.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repositoryRoot } from '../test/support/go-binary.js';
import { startFleet } from '../test/fleet/fleet.js';
import { pullRequestEvent, runAction, type ActionRun } from '../test/github/index.js';
import { DEMO_REPOSITORY, stageDemo } from '../test/action/demo-stage.js';
import { keepWorkloadsReady } from '../test/action/kubelet-stand-in.js';

const out = resolve(repositoryRoot, '.fleet', 'demo');
mkdirSync(out, { recursive: true });
const say = (line: string) => process.stderr.write(`demo: ${line}\n`);

function show(title: string, run: ActionRun): void {
  say(`${title}: exit ${run.exitCode}, outputs has-changes=${run.outputs['has-changes']} applied-clusters=${run.outputs['applied-clusters'] ?? ''} failed-cluster=${run.outputs['failed-cluster'] ?? ''}`);
  process.stdout.write(`\n----- action log: ${title} -----\n${run.log}\n`);
}

const fleet = await startFleet({ clusters: 3, dir: join(out, 'fleet'), log: (line) => say(line) });
const stage = await stageDemo(fleet.kubeconfig);
const ready = keepWorkloadsReady(fleet.kubeconfig, fleet.clusters.map((c) => c.contextName), 'shop');
let exitCode = 0;
try {
  say(`registry ${stage.registry.url} holds the example module (${stage.moduleDigest}); GitHub stand-in at ${stage.github.url}`);
  const pr = stage.openPullRequest(1);
  const common = { githubApiUrl: stage.github.url, token: stage.github.token, workdir: stage.workdir, inputs: stage.inputs, env: stage.env, timeoutMs: 300_000 };

  say('pull request #1 opened: diffing every cluster');
  const diff = await runAction({ ...common, event: pullRequestEvent({ action: 'opened', repository: `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`, number: pr.number, headSha: pr.headSha }) });
  show('pull request', diff);
  writeFileSync(join(out, 'pr-comment-diff.md'), stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number).at(-1)?.body ?? '(no comment was posted)\n');
  writeFileSync(join(out, 'pr-summary.md'), diff.summary);

  say('pull request #1 merged: rolling out staging, then production');
  stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
  const merge = await runAction({
    ...common,
    event: pullRequestEvent({ action: 'closed', merged: true, mergeCommitSha: pr.mergeCommitSha, repository: `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`, number: pr.number, headSha: pr.headSha }),
  });
  show('merge', merge);
  writeFileSync(join(out, 'rollout-summary.md'), merge.summary);

  const comments = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number);
  writeFileSync(join(out, 'pr-comment.md'), comments.at(-1)?.body ?? '(no comment was posted)\n');
  process.stdout.write(`\nThe pull request comment (after the merge): ${join(out, 'pr-comment.md')}\n`);
  process.stdout.write(`The job summaries: ${join(out, 'pr-summary.md')} and ${join(out, 'rollout-summary.md')}\n`);
  exitCode = diff.exitCode === 0 && merge.exitCode === 0 ? 0 : 1;
} finally {
  await ready.stop().catch(() => undefined);
  await stage.stop();
  await fleet.stop();
}
process.exitCode = exitCode;
