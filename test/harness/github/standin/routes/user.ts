// GET /user: the account behind a personal token. An installation token (a workflow's
// GITHUB_TOKEN, a GitHub App's token) acts as no user, and GitHub answers 403 "Resource not
// accessible by integration"; without a token, 401 "Requires authentication".
import type { Reply, RequestContext } from '../context.js';
import { DOCS, notAccessibleByIntegration, requiresAuthentication } from '../errors.js';
import { simpleUser } from '../users.js';

export function authenticatedUser(ctx: RequestContext): Reply {
  if (!ctx.caller) throw requiresAuthentication(`${DOCS}/users/users#get-the-authenticated-user`);
  if (ctx.caller.kind === 'installation')
    throw notAccessibleByIntegration(`${DOCS}/users/users#get-the-authenticated-user`);
  return { status: 200, body: simpleUser(ctx.caller.account, ctx.urls.api, ctx.urls.server) };
}
