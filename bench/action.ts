// The action's speed on a pull request, as a user waits for it: `node dist/index.js` run as
// the Actions runner runs it against a local fleet of 3 clusters (the demo stage), timed
// from process start to the first cluster request, and in total (wall time of the step).
import { readFileSync } from 'node:fs';
import { startFleet } from '../test/harness/fleet/fleet.js';
import { pullRequestEvent, runAction } from '../test/harness/github/index.js';
import { DEMO_REPOSITORY, stageDemo } from '../test/harness/demo/demo-stage.js';
import { median, type BenchResult } from './result.js';

const RUNS = 5;

export async function benchAction(): Promise<BenchResult[]> {
  const fleet = await startFleet({ clusters: 3 });
  const stage = await stageDemo(readFileSync(fleet.kubeconfigPath, 'utf8'));
  try {
    const firstRequest: number[] = [];
    const total: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const pr = stage.openPullRequest(100 + run);
      const started = performance.now();
      const result = await runAction({
        event: pullRequestEvent({
          action: 'opened',
          repository: `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`,
          number: pr.number,
          headSha: pr.headSha,
        }),
        githubApiUrl: stage.github.url,
        token: stage.github.token,
        workdir: stage.workdir,
        inputs: stage.inputs,
        env: stage.env,
        debug: true,
        timeoutMs: 300_000,
      });
      total.push(performance.now() - started);
      if (result.exitCode !== 0) throw new Error(`the action failed in the benchmark:\n${result.log}`);
      const timing = /first cluster request (\d+) ms after start/.exec(result.stdout);
      if (timing) firstRequest.push(Number(timing[1]));
    }
    return [
      {
        name: 'action: process start to first cluster request (PR, 3 clusters)',
        median_ms: median(firstRequest),
        runs: firstRequest.length,
      },
      {
        name: 'action: whole pull request run (3 clusters, 1 instance each)',
        median_ms: median(total),
        runs: total.length,
        note: 'diff + comment + summary, runner-style spawn included',
      },
    ];
  } finally {
    await stage.stop();
    await fleet.stop();
  }
}
