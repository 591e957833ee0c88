// `npm run demo`: the action's main job on a local demo fleet, as GitHub would run it.
// It starts three real clusters (staging-1, production-eu, production-us), a real OCI
// registry holding the example module, and the GitHub API stand-in; then it runs
// `node dist/index.js` for four events, what reviewers see most days:
//
//   1-first-pull-request   PR #1 adds the bundle: diff of every cluster, everything created
//   2-first-merge          its merge: rollout in runtime order, staging before production
//   3-second-pull-request  PR #2 changes values of staging only (webapp 1.5.0 on two
//                          replicas): the Deployment of staging-1 configured, with its field
//                          diff; production unchanged
//   4-second-merge         its merge: staging-1 applied, production in sync
//
// Each stage's folder under .fleet/demo/ holds the PR comment after the run (comment.md),
// the job summary (summary.md), the action's log (log.txt) and outputs (outputs.json).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repositoryRoot } from '../test/harness/support/go-binary.js';
import { startFleet } from '../test/harness/fleet/fleet.js';
import { pullRequestEvent, runAction, type ActionRun } from '../test/harness/github/index.js';
import { DEMO_REPOSITORY, stageDemo, type DemoStage, type TextReplacement } from '../test/harness/demo/demo-stage.js';
import { keepWorkloadsReady } from '../test/harness/demo/kubelet-stand-in.js';

const out = resolve(repositoryRoot, '.fleet', 'demo');
const fleetDir = join(out, 'fleet');
mkdirSync(out, { recursive: true });
// Outputs of an earlier demo (stage folders, or the flat files of older versions) go; the
// fleet's folder is the fleet's own business (startFleet refuses one that still runs).
for (const entry of readdirSync(out)) if (entry !== 'fleet') rmSync(join(out, entry), { recursive: true, force: true });
const say = (line: string) => process.stderr.write(`demo: ${line}\n`);
const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;

/** The second pull request: a new release of the web app on staging, on two replicas. Production keeps its values. */
const stagingChange: TextReplacement[] = [
  {
    from: '\t\t\t\tif _cluster.group == "staging" {\n\t\t\t\t\treplicas: 1\n\t\t\t\t}\n',
    to: '\t\t\t\tif _cluster.group == "staging" {\n\t\t\t\t\treplicas: 2\n\t\t\t\t\timage: tag: "1.5.0"\n\t\t\t\t}\n',
  },
];

interface StageResult {
  folder: string;
  run: ActionRun;
}

/** Writes what a stage produced into its folder and prints its log. */
function record(stage: DemoStage, folder: string, title: string, pullRequest: number, run: ActionRun): StageResult {
  const dir = join(out, folder);
  mkdirSync(dir, { recursive: true });
  const comment = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pullRequest).at(-1)?.body;
  writeFileSync(join(dir, 'comment.md'), comment ?? '(no comment was posted)\n');
  writeFileSync(join(dir, 'summary.md'), run.summary);
  writeFileSync(join(dir, 'log.txt'), run.log);
  writeFileSync(join(dir, 'outputs.json'), `${JSON.stringify(run.outputs, null, 2)}\n`);
  say(
    `${title}: exit ${run.exitCode}, outputs has-changes=${run.outputs['has-changes']} applied-clusters=${run.outputs['applied-clusters'] ?? ''} failed-cluster=${run.outputs['failed-cluster'] ?? ''}; written to ${dir}`,
  );
  process.stdout.write(`\n----- action log: ${title} -----\n${run.log}\n`);
  return { folder: dir, run };
}

async function pullRequestAndMerge(
  stage: DemoStage,
  number: number,
  folders: [string, string],
  purpose: string,
): Promise<StageResult[]> {
  const pr = stage.openPullRequest(number);
  const common = {
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: stage.inputs,
    env: stage.env,
    timeoutMs: 300_000,
  };

  say(`pull request #${number} opened (${purpose}): diffing every cluster`);
  const diff = await runAction({
    ...common,
    event: pullRequestEvent({ action: 'opened', repository, number, headSha: pr.headSha }),
  });
  const opened = record(stage, folders[0], `pull request #${number}`, number, diff);

  say(`pull request #${number} merged: rolling out in runtime order, staging first`);
  stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
  const merge = await runAction({
    ...common,
    event: pullRequestEvent({
      action: 'closed',
      merged: true,
      mergeCommitSha: pr.mergeCommitSha,
      repository,
      number,
      headSha: pr.headSha,
    }),
  });
  return [opened, record(stage, folders[1], `merge of #${number}`, number, merge)];
}

const fleet = await startFleet({ clusters: 3, dir: fleetDir, log: (line) => say(line) });
let exitCode = 1;
try {
  const stage = await stageDemo(fleet.kubeconfig);
  const ready = keepWorkloadsReady(
    fleet.kubeconfig,
    fleet.clusters.map((c) => c.contextName),
    'shop',
  );
  try {
    say(
      `registry ${stage.registry.url} holds the example module (${stage.moduleDigest}); GitHub stand-in at ${stage.github.url}`,
    );
    const results = await pullRequestAndMerge(stage, 1, ['1-first-pull-request', '2-first-merge'], 'adds the bundle');
    stage.editBundle(stagingChange);
    results.push(
      ...(await pullRequestAndMerge(
        stage,
        2,
        ['3-second-pull-request', '4-second-merge'],
        'staging: webapp 1.5.0 on two replicas',
      )),
    );

    process.stdout.write(
      `\nWhat reviewers see on the second pull request (the README's picture): ${join(out, '3-second-pull-request', 'comment.md')}\n`,
    );
    process.stdout.write(
      `Every stage (comment.md, summary.md, log.txt, outputs.json): ${results.map((result) => result.folder).join(', ')}\n`,
    );
    exitCode = results.every((result) => result.run.exitCode === 0) ? 0 : 1;
  } finally {
    await ready.stop().catch((error: unknown) => say(`stopping the kubelet stand-in: ${(error as Error).message}`));
    await stage.stop();
  }
} finally {
  await fleet.stop();
}
process.exitCode = exitCode;
