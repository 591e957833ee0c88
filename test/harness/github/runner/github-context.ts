// The `github` context of a run, derived from the event as GitHub derives it:
// pull_request* events run on refs/pull/N/merge at the test-merge commit, push on
// the pushed ref at `after`, workflow_dispatch on the chosen ref.
import { createHash } from 'node:crypto';

export interface GitHubEvent {
  /** Event name: pull_request, push, workflow_dispatch, ... */
  name: string;
  payload: Record<string, unknown>;
}

export interface GitHubContextOverrides {
  repository?: string;
  sha?: string;
  ref?: string;
  actor?: string;
  runId?: string;
  runNumber?: string;
  runAttempt?: string;
  job?: string;
  workflow?: string;
  serverUrl?: string;
}

export interface GitHubContext {
  event_name: string;
  event: Record<string, unknown>;
  repository: string;
  repository_owner: string;
  repository_id: string;
  repository_owner_id: string;
  sha: string;
  ref: string;
  ref_name: string;
  ref_type: 'branch' | 'tag';
  head_ref: string;
  base_ref: string;
  actor: string;
  actor_id: string;
  triggering_actor: string;
  run_id: string;
  run_number: string;
  run_attempt: string;
  job: string;
  workflow: string;
  workflow_ref: string;
  workflow_sha: string;
  server_url: string;
  api_url: string;
  graphql_url: string;
  workspace: string;
  token: string;
  action: string;
  retention_days: string;
}

function field(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

const str = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** A stable 40-hex SHA for runs whose event carries none (workflow_dispatch). */
const syntheticSha = (seed: string): string => createHash('sha1').update(seed).digest('hex');

export function githubContext(
  event: GitHubEvent,
  options: { apiUrl: string; workspace: string; token: string; overrides: GitHubContextOverrides },
): GitHubContext {
  const o = options.overrides;
  const p = event.payload;
  const repository = o.repository ?? str(field(p, 'repository.full_name'));
  if (!repository || !repository.includes('/')) {
    throw new Error(`runAction: event ${event.name} has no repository.full_name; pass github.repository`);
  }
  const [owner = ''] = repository.split('/');
  let ref: string | undefined;
  let sha: string | undefined;
  let headRef = '';
  let baseRef = '';
  if (event.name === 'pull_request' || event.name === 'pull_request_target') {
    const number = str(field(p, 'pull_request.number')) ?? str(p.number);
    if (!number) throw new Error(`runAction: ${event.name} event without pull_request.number`);
    headRef = str(field(p, 'pull_request.head.ref')) ?? '';
    baseRef = str(field(p, 'pull_request.base.ref')) ?? '';
    if (event.name === 'pull_request') {
      ref = `refs/pull/${number}/merge`;
      sha = str(field(p, 'pull_request.merge_commit_sha')) ?? str(field(p, 'pull_request.head.sha'));
    } else {
      ref = `refs/heads/${baseRef}`;
      sha = str(field(p, 'pull_request.base.sha'));
    }
  } else if (event.name === 'push') {
    ref = str(p.ref);
    sha = str(p.after);
  } else {
    ref = str(p.ref) ?? `refs/heads/${str(field(p, 'repository.default_branch')) ?? 'main'}`;
  }
  ref = o.ref ?? ref;
  if (!ref) throw new Error(`runAction: cannot tell the ref of a ${event.name} event; pass github.ref`);
  sha = o.sha ?? sha ?? syntheticSha(`${repository}@${ref}`);
  const refType = ref.startsWith('refs/tags/') ? 'tag' : 'branch';
  const refName = ref.replace(/^refs\/(heads|tags|pull)\//, '');
  const actor = o.actor ?? str(field(p, 'sender.login')) ?? 'octocat';
  const serverUrl = o.serverUrl ?? 'https://github.com';
  const workflow = o.workflow ?? 'timoni-fleet';
  return {
    event_name: event.name,
    event: p,
    repository,
    repository_owner: owner,
    repository_id: str(field(p, 'repository.id')) ?? '1',
    repository_owner_id: str(field(p, 'repository.owner.id')) ?? '1',
    sha,
    ref,
    ref_name: refName,
    ref_type: refType,
    head_ref: headRef,
    base_ref: baseRef,
    actor,
    actor_id: str(field(p, 'sender.id')) ?? '1',
    triggering_actor: actor,
    run_id: o.runId ?? '8000000001',
    run_number: o.runNumber ?? '1',
    run_attempt: o.runAttempt ?? '1',
    job: o.job ?? 'fleet',
    workflow,
    workflow_ref: `${repository}/.github/workflows/fleet.yml@${ref}`,
    workflow_sha: sha,
    server_url: serverUrl,
    api_url: options.apiUrl,
    graphql_url: `${options.apiUrl}/graphql`,
    workspace: options.workspace,
    token: options.token,
    action: '__timoni-fleet',
    retention_days: '90',
  };
}
