// The accounts the stand-in knows: who a token acts as, and the simple-user JSON
// object GitHub embeds wherever a user appears (comment authors, PR authors, owners).

export interface Account {
  login: string;
  id: number;
  type: 'Bot' | 'User' | 'Organization';
}

/** The account behind a workflow's GITHUB_TOKEN (the GitHub Actions app's bot user). */
export const GITHUB_ACTIONS_BOT: Account = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };

/** simple-user, as GitHub's REST API renders an account. */
export function simpleUser(account: Account, apiUrl: string, serverUrl: string): Record<string, unknown> {
  const path = encodeURIComponent(account.login);
  const api = `${apiUrl}/users/${path}`;
  const kind = account.type === 'Bot' ? 'Bot' : account.type === 'Organization' ? 'Organization' : 'User';
  return {
    login: account.login,
    id: account.id,
    node_id: Buffer.from(`04:${kind}${account.id}`).toString('base64'),
    avatar_url:
      account.type === 'Bot'
        ? `https://avatars.githubusercontent.com/in/15368?v=4`
        : `https://avatars.githubusercontent.com/u/${account.id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url:
      account.type === 'Bot'
        ? `${serverUrl}/apps/${account.login.replace(/\[bot\]$/, '')}`
        : `${serverUrl}/${account.login}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: account.type,
    user_view_type: 'public',
    site_admin: false,
  };
}
