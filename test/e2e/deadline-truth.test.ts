// End to end, a run that overruns its deadline still tells the truth (issue 31, item 4). A pull
// request's first commit is diffed and commented; its next commit makes the CUE evaluation burn
// CPU (a comprehension of millions of steps, little memory) past a short `deadline`. The
// evaluation is abandoned at the reserve kept to publish (its engine stopped), and the sticky
// comment and the job summary say that this commit could not be diffed: which cluster, which
// step, for how long, which deadline. The previous commit's diff no longer stands in the comment.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeSha, pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('overrun');
let stage: DemoStage;

beforeAll(() => {
  stage = currentStage();
});

/** The bundle of both commits: the same name and file; the second commit's message burns CPU. */
function writeBundle(message: string): string {
  // CUE refuses an import that is not used: only the burning commit imports list.
  const imports = message.includes('list.') ? 'import "list"\n' : '';
  writeFileSync(
    join(stage.workdir, 'overrun.cue'),
    `${imports}

bundle: {
	_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"
	name: "overrun"
	instances: web: {
		module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}
		namespace: "overrun"
		values: message: ${message}
	}
}
`,
  );
  return 'overrun.cue';
}

function run(event: Parameters<typeof runAction>[0]['event'], inputs: Record<string, string>): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, 'runtime-group': 'staging', ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

// About 30 million comprehension steps with a few MiB of memory: minutes of CPU, far past the deadline.
const BURNING_MESSAGE = `"\\(len([for i in list.Range(0, 3000, 1) for j in list.Range(0, 10000, 1) if i*j < 0 {i}]))"`;

describe('a commit whose evaluation overruns the deadline', () => {
  it('replaces the previous diff in the comment and the summary with why this commit could not be diffed', async () => {
    const pr = stage.openPullRequest(311);
    const bundle = writeBundle('"first commit diffed-marker-311"');
    const first = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { bundle, deadline: '90s' },
    );
    expect(first.exitCode, first.log).toBe(0);
    const before = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number);
    expect(before).toHaveLength(1);
    expect(before[0]?.body).toContain('diffed-marker-311');
    expect(before[0]?.body).toContain(pr.headSha.slice(0, 7));

    const nextSha = fakeSha('overrun-311-second');
    writeBundle(BURNING_MESSAGE);
    const started = Date.now();
    const second = await run(
      pullRequestEvent({ action: 'synchronize', repository, number: pr.number, headSha: nextSha }),
      { bundle, deadline: '20s' },
    );
    const elapsed = Date.now() - started;
    // The process ended by itself, within the deadline and its grace, and the step failed.
    expect(second.timedOut).toBe(false);
    expect(second.exitCode, second.log).not.toBe(0);
    expect(elapsed).toBeLessThan(40_000);

    // The one comment of the bundle now speaks of this commit: it could not be diffed, and why.
    const after = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number);
    expect(after, JSON.stringify(after.map((c) => c.body))).toHaveLength(1);
    const comment = after[0]?.body ?? '';
    expect(comment).toMatch(new RegExp(`[Cc]ommit \\S*${nextSha.slice(0, 7)}\\S* could not be diffed`));
    expect(comment).toContain('staging-1');
    // The bundle check before any cluster (`bundle`) or the cluster's own evaluation (`evaluate`).
    expect(comment).toMatch(/at step (bundle|evaluate) for \d+(\.\d)? s/);
    expect(comment).toMatch(/for \d+(\.\d)? s/);
    expect(comment).toMatch(/deadline \(?20s/);
    // The previous commit's diff is gone from it: neither its commit nor its changes.
    expect(comment).not.toContain(pr.headSha.slice(0, 7));
    expect(comment).not.toContain('diffed-marker-311');

    // The job summary says the same.
    expect(second.summary).toMatch(new RegExp(`[Cc]ommit \\S*${nextSha.slice(0, 7)}\\S* could not be diffed`));
    expect(second.summary).toContain('staging-1');
    expect(second.summary).toMatch(/at step (bundle|evaluate) for \d+(\.\d)? s/);

    // An error annotation says why the step failed.
    const errors = second.commands.filter((c) => c.command === 'error');
    expect(errors.map((c) => c.message).join('\n')).toMatch(/deadline/);
    expect(`${second.stdout}${second.stderr}`).not.toContain('goroutine');
  });
});
