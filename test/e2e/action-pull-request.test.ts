// End to end: `node dist/index.js` run as the Actions runner runs it, against the local
// fleet (three real clusters), a real registry and the GitHub stand-in: a pull request is
// diffed into one comment, updated on synchronize, applied on merge in runtime order.
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  assertNoSecretLeak,
  pullRequestEvent,
  runAction,
  workflowDispatchEvent,
  type ActionRun,
} from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

interface ChangeSetOutput {
  bundle: string;
  mode: string;
  clusters: Array<{
    name: string;
    group: string;
    status: string;
    instances: Array<{ name: string; module: { digest: string }; changes: Array<{ kind: string; action: string }> }>;
  }>;
}

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage('shop');
let stage: DemoStage;
beforeAll(() => {
  stage = currentStage();
});

function run(
  event: Parameters<typeof runAction>[0]['event'],
  inputs: Record<string, string> = {},
  token = stage.github.token,
): Promise<ActionRun> {
  return runAction({
    event,
    githubApiUrl: stage.github.url,
    token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, ...inputs },
    env: stage.env,
    timeoutMs: 110_000,
  });
}

/** The client keys and certificates of the kubeconfig (what must never be printed). */
function kubeconfigCredentials(kubeconfig: string): string[] {
  const users = (parse(kubeconfig) as { users: Array<{ user: Record<string, string> }> }).users;
  return users
    .flatMap((u) => [
      u.user['client-key-data'],
      Buffer.from(u.user['client-key-data'] ?? '', 'base64')
        .toString('utf8')
        .split('\n')[1],
    ])
    .filter((v): v is string => Boolean(v));
}

const changes = (action: ActionRun) => JSON.parse(action.outputs.changes ?? '{}') as ChangeSetOutput;

describe('the action on a pull request and its merge', () => {
  let pr: ReturnType<DemoStage['openPullRequest']>;

  it('diffs every cluster on a new pull request and posts one comment', async () => {
    pr = stage.openPullRequest(11);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(result.outputs['has-changes'], result.log).toBe('true');
    const changeSet = changes(result);
    expect(changeSet).toMatchObject({ bundle: 'shop', mode: 'diff' });
    expect(changeSet.clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'changed'],
      ['production-eu', 'changed'],
      ['production-us', 'changed'],
    ]);
    expect(changeSet.clusters[0]?.instances[0]?.module.digest).toBe(stage.moduleDigest);
    expect(changeSet.clusters[0]?.instances[0]?.changes.every((c) => c.action === 'created')).toBe(true);
    const comments = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain('staging-1');
    expect(comments[0]?.body).toContain(pr.headSha.slice(0, 7));
    expect(result.outputs['comment-url']).toMatch(
      /^https:\/\/github\.com\/acme\/shop-deploy\/pull\/11#issuecomment-\d+$/,
    );
    expect(result.summary).toContain('production-us');
    // Only credentials are masked, not the structure of the objects.
    expect(comments[0]?.body).toContain('kind: ConfigMap');
    expect(comments[0]?.body).not.toContain('secret value changed');
    assertNoSecretLeak(
      result,
      kubeconfigCredentials(stage.kubeconfig),
      comments.map((c) => c.body),
    );
  });

  it('updates the same comment when the pull request is synchronized', async () => {
    const result = await run(
      pullRequestEvent({ action: 'synchronize', repository, number: pr.number, headSha: pr.headSha }),
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number)).toHaveLength(1);
    expect(stage.github.state.requests.filter((r) => r.method === 'PATCH')).toHaveLength(1);
  });

  it('applies on merge cluster by cluster in runtime order and reports it', async () => {
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
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(result.outputs['applied-clusters']).toBe('staging-1,production-eu,production-us');
    expect(result.outputs['failed-cluster']).toBe('');
    const groups = result.commands.filter((c) => c.command === 'group').map((c) => c.message);
    expect(groups).toEqual([
      'cluster staging-1 (staging)',
      'cluster production-eu (production)',
      'cluster production-us (production)',
    ]);
    const comments = stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number);
    expect(comments).toHaveLength(1);
    expect(result.summary).toContain('staging-1');
    // Readiness of every waited-for object reaches the ChangeSet and the summary.
    const deployment = changes(result).clusters[0]?.instances[0]?.changes.find((c) => c.kind === 'Deployment') as
      { readiness?: { status: string } } | undefined;
    expect(deployment?.readiness?.status).toBe('Current');
    expect(result.summary).toContain('Current');
  });

  it('finds nothing to change after the rollout', async () => {
    const again = stage.openPullRequest(12);
    const result = await run(
      pullRequestEvent({ action: 'opened', repository, number: again.number, headSha: again.headSha }),
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(result.outputs['has-changes']).toBe('false');
    expect(changes(result).clusters.map((c) => c.status)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  });

  it('diffs only the production group on workflow_dispatch', async () => {
    const result = await run(
      workflowDispatchEvent({ repository, inputs: { 'cluster-group': 'production', mode: 'diff' } }),
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(changes(result).clusters.map((c) => c.name)).toEqual(['production-eu', 'production-us']);
  });

  it('says so when a fork token cannot comment, and still passes on the diff', async () => {
    const fork = stage.openPullRequest(13);
    const result = await run(
      pullRequestEvent({
        action: 'opened',
        repository,
        number: fork.number,
        headSha: fork.headSha,
        headRepository: 'forker/shop-deploy',
      }),
      {},
      stage.github.readOnlyToken,
    );
    expect(result.exitCode, result.log).toBe(0);
    expect(stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, fork.number)).toHaveLength(0);
    expect(result.log).toContain('Resource not accessible by integration');
    expect(result.summary).toContain('No pull request comment');
  });
});
