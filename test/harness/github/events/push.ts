// `push` webhook payloads (a branch push, e.g. the merge of a pull request).
import type { GitHubEvent } from '../runner/github-context.js';
import {
  DEFAULT_URLS,
  type PayloadUrls,
  type RepositoryRef,
  repositoryPayload,
  repositoryRef,
} from './payload-objects.js';

export interface PushCommit {
  id: string;
  message: string;
  added?: string[];
  modified?: string[];
  removed?: string[];
}

export interface PushEventSpec {
  repository: RepositoryRef | string;
  /** Full ref: refs/heads/main. */
  ref: string;
  before: string;
  after: string;
  commits?: PushCommit[];
  pusher?: string;
  forced?: boolean;
  urls?: PayloadUrls;
}

export function pushEvent(spec: PushEventSpec): GitHubEvent {
  const urls = spec.urls ?? DEFAULT_URLS;
  if (!spec.ref.startsWith('refs/'))
    throw new Error(`pushEvent: ref '${spec.ref}' must be a full ref (refs/heads/...)`);
  for (const [name, sha] of [
    ['before', spec.before],
    ['after', spec.after],
  ] as const) {
    if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`pushEvent: ${name} '${sha}' is not a 40-hex SHA`);
  }
  const repo = repositoryRef(spec.repository);
  const full = `${repo.owner}/${repo.name}`;
  const pusher = spec.pusher ?? 'octocat';
  const author = { name: pusher, email: `${pusher}@users.noreply.github.com`, username: pusher };
  const commits = (spec.commits ?? [{ id: spec.after, message: 'Merge pull request' }]).map((c) => ({
    id: c.id,
    tree_id: c.id.split('').reverse().join(''),
    distinct: true,
    message: c.message,
    timestamp: '2026-11-22T01:00:00Z',
    url: `${urls.server}/${full}/commit/${c.id}`,
    author,
    committer: { name: 'GitHub', email: 'noreply@github.com', username: 'web-flow' },
    added: c.added ?? [],
    removed: c.removed ?? [],
    modified: c.modified ?? [],
  }));
  const zero = /^0{40}$/;
  const repository = repositoryPayload(repo, urls);
  return {
    name: 'push',
    payload: {
      ref: spec.ref,
      before: spec.before,
      after: spec.after,
      repository: { ...repository, master_branch: repository.default_branch },
      pusher: { name: pusher, email: author.email },
      sender: { login: pusher },
      created: zero.test(spec.before),
      deleted: zero.test(spec.after),
      forced: spec.forced ?? false,
      base_ref: null,
      compare: `${urls.server}/${full}/compare/${spec.before.slice(0, 12)}...${spec.after.slice(0, 12)}`,
      commits,
      head_commit: commits.at(-1) ?? null,
    },
  };
}
