// End to end, a pull request diff that fails before it reaches any cluster still tells the
// truth (issue 31, item 4). The pull request's first commit is diffed and commented; its next
// commit breaks the runtime (a CUE conflict), and the one after makes the runtime's evaluation
// burn CPU past a short `deadline`. Neither run reaches a cluster, and before this was built
// neither published anything: the pull request kept the first commit's diff as its own. Now the
// bundle's comment (found by its bundle files: the bundle's name is unknown then) says that
// this commit could not be diffed, at which step and why, and the job summary says the same;
// the step still fails.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fakeSha, pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('earlyfail');
let stage: DemoStage;
let runtimeText: string;

beforeAll(() => {
  stage = currentStage();
  runtimeText = readFileSync(join(stage.workdir, 'runtime.cue'), 'utf8');
  writeFileSync(
    join(stage.workdir, 'earlyfail.cue'),
    `bundle: {
	_registry: string @timoni(runtime:string:DEMO_REGISTRY)
	apiVersion: "v1alpha1"
	name: "earlyfail"
	instances: web: {
		module: {url: "oci://\\(_registry)/modules/webapp", version: "1.4.0"}
		namespace: "earlyfail"
		values: message: "first commit diffed-marker-early-312"
	}
}
`,
  );
});

/** The stage's runtime.cue with `edit` applied to its text (the cluster staging-1's lines). */
function writeRuntime(edit: (text: string) => string): void {
  const text = edit(runtimeText);
  if (text === runtimeText) throw new Error('the runtime edit changed nothing (was examples/runtime.cue changed?)');
  writeFileSync(join(stage.workdir, 'runtime.cue'), text);
}

function run(event: Parameters<typeof runAction>[0]['event'], inputs: Record<string, string>): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, bundle: 'earlyfail.cue', 'runtime-group': 'staging', ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

function comments(number: number): string[] {
  return stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, number).map((c) => c.body ?? '');
}

const couldNotBeDiffed = (sha: string) => new RegExp(`[Cc]ommit \\S*${sha.slice(0, 7)}\\S* could not be diffed`);

// About 30 million comprehension steps with a few MiB of memory: minutes of CPU, far past the deadline.
const BURN = `len([for i in list.Range(0, 3000, 1) for j in list.Range(0, 10000, 1) if i*j < 0 {i}])`;

describe('a pull request commit that fails before any cluster is reached', () => {
  it('replaces the previous diff with why this commit could not be diffed: a runtime error, then a deadline', async () => {
    const pr = stage.openPullRequest(312);
    const first = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      { deadline: '90s' },
    );
    expect(first.exitCode, first.log).toBe(0);
    const before = comments(pr.number);
    expect(before).toHaveLength(1);
    expect(before[0]).toContain('diffed-marker-early-312');
    expect(before[0]).toContain(pr.headSha.slice(0, 7));

    // Commit 2: the runtime does not evaluate (two values for one field).
    const secondSha = fakeSha('earlyfail-312-second');
    writeRuntime((text) =>
      text.replace('group:       "staging"', 'group:       "staging"\n\t\t\tgroup:       "canary"'),
    );
    const second = await run(
      pullRequestEvent({ action: 'synchronize', repository, number: pr.number, headSha: secondSha }),
      { deadline: '90s' },
    );
    expect(second.exitCode, second.log).toBe(1);
    const afterSecond = comments(pr.number);
    expect(afterSecond, JSON.stringify(afterSecond)).toHaveLength(1);
    const secondComment = afterSecond[0] ?? '';
    expect(secondComment).toMatch(couldNotBeDiffed(secondSha));
    expect(secondComment).toMatch(/step <code>runtime<\/code>/);
    // The error with its file and line (the line of the second value), escaped as report text.
    expect(secondComment).toMatch(/runtime\.cue&#58;\d+&#58;\d+/);
    expect(secondComment).toMatch(/conflicting values/);
    expect(secondComment).not.toContain(pr.headSha.slice(0, 7));
    expect(secondComment).not.toContain('diffed-marker-early-312');
    expect(second.summary).toMatch(couldNotBeDiffed(secondSha));
    expect(second.summary).toMatch(/conflicting values/);
    // The annotation on the user's line is kept.
    const errors = second.commands.filter((c) => c.command === 'error');
    expect(
      errors.some((c) => (c.properties.file ?? '').endsWith('runtime.cue')),
      second.log,
    ).toBe(true);

    // Commit 3: the runtime's evaluation burns CPU past the deadline.
    const thirdSha = fakeSha('earlyfail-312-third');
    writeRuntime((text) => `import "list"\n\n${text.replace('name:       "demo"', `name:       "demo-\\(${BURN})"`)}`);
    const started = Date.now();
    const third = await run(
      pullRequestEvent({ action: 'synchronize', repository, number: pr.number, headSha: thirdSha }),
      { deadline: '20s' },
    );
    const elapsed = Date.now() - started;
    expect(third.timedOut).toBe(false);
    expect(third.exitCode, third.log).toBe(1);
    expect(elapsed).toBeLessThan(40_000);
    const afterThird = comments(pr.number);
    expect(afterThird, JSON.stringify(afterThird)).toHaveLength(1);
    const thirdComment = afterThird[0] ?? '';
    expect(thirdComment).toMatch(couldNotBeDiffed(thirdSha));
    expect(thirdComment).toMatch(/step <code>deadline<\/code>/);
    expect(thirdComment).toMatch(/at step runtime for \d+(\.\d)? s/);
    expect(thirdComment).toMatch(/deadline 20s/);
    expect(thirdComment).not.toContain(secondSha.slice(0, 7));
    expect(thirdComment).not.toContain(pr.headSha.slice(0, 7));
    expect(third.summary).toMatch(couldNotBeDiffed(thirdSha));
    expect(third.summary).toMatch(/at step runtime for \d+(\.\d)? s/);
    const deadlineErrors = third.commands.filter((c) => c.command === 'error').map((c) => c.message);
    expect(deadlineErrors.join('\n')).toMatch(/deadline/);
  });
});
