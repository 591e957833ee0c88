// GET /repos/{owner}/{repo}
import { OPERATION_DOCS } from '../errors.js';
import { type Reply, type RequestContext, visibleRepository } from '../context.js';
import { repositoryObject } from '../objects.js';
import type { RepositoryRecord } from '../records.js';

export function getRepository(ctx: RequestContext, repository: RepositoryRecord | undefined): Reply {
  const repo = visibleRepository(ctx, repository, OPERATION_DOCS.getRepository);
  return { status: 200, body: repositoryObject(repo, ctx.urls) };
}
