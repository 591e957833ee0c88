// Objects shared by webhook payloads: the repository, the user (sender, owner),
// and a deterministic commit SHA for tests.
import { createHash } from 'node:crypto';

export interface RepositoryRef {
  owner: string;
  name: string;
  id?: number;
  defaultBranch?: string;
  private?: boolean;
  ownerType?: 'User' | 'Organization';
}

export interface PayloadUrls {
  api: string;
  server: string;
}

export const DEFAULT_URLS: PayloadUrls = { api: 'https://api.github.com', server: 'https://github.com' };

/** A 40-hex SHA derived from `seed`, stable across runs. */
export function fakeSha(seed: string): string {
  return createHash('sha1').update(seed).digest('hex');
}

/** A stable positive id for a name (repositories and users that tests do not number). */
export function stableId(name: string): number {
  return Number.parseInt(fakeSha(name).slice(0, 7), 16) + 1;
}

export function repositoryRef(ref: RepositoryRef | string): RepositoryRef {
  if (typeof ref !== 'string') return ref;
  const [owner, name, ...rest] = ref.split('/');
  if (!owner || !name || rest.length > 0) throw new Error(`event builder: repository '${ref}' is not owner/name`);
  return { owner, name };
}

export function userPayload(
  login: string,
  urls: PayloadUrls,
  type: 'User' | 'Organization' | 'Bot' = 'User',
  id = stableId(login),
): Record<string, unknown> {
  const api = `${urls.api}/users/${encodeURIComponent(login)}`;
  return {
    login,
    id,
    node_id: Buffer.from(`04:${type}${id}`).toString('base64'),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: `${urls.server}/${login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type,
    user_view_type: 'public',
    site_admin: false,
  };
}

export function repositoryPayload(
  ref: RepositoryRef,
  urls: PayloadUrls,
  options: { fork?: boolean } = {},
): Record<string, unknown> {
  const full = `${ref.owner}/${ref.name}`;
  const api = `${urls.api}/repos/${full}`;
  const id = ref.id ?? stableId(full);
  return {
    id,
    node_id: `R_kgDO${Buffer.from(String(id)).toString('base64url')}`,
    name: ref.name,
    full_name: full,
    private: ref.private ?? false,
    owner: userPayload(ref.owner, urls, ref.ownerType ?? 'Organization'),
    html_url: `${urls.server}/${full}`,
    description: null,
    fork: options.fork ?? false,
    url: api,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issues_url: `${api}/issues{/number}`,
    pulls_url: `${api}/pulls{/number}`,
    commits_url: `${api}/commits{/sha}`,
    created_at: '2024-01-02T03:04:05Z',
    updated_at: '2026-11-01T00:00:00Z',
    pushed_at: '2026-11-21T00:00:00Z',
    git_url: `git://github.com/${full}.git`,
    ssh_url: `git@github.com:${full}.git`,
    clone_url: `${urls.server}/${full}.git`,
    visibility: ref.private ? 'private' : 'public',
    archived: false,
    disabled: false,
    allow_forking: true,
    is_template: false,
    topics: [],
    default_branch: ref.defaultBranch ?? 'main',
  };
}
