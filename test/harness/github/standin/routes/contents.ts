// GET /repos/{owner}/{repo}/contents/{path}?ref={ref}: a file at a commit, as GitHub
// answers it. A file's content comes base64-encoded with a newline after every 60
// characters (and one at the end), `encoding: "base64"`, its git blob `sha` and `size`. A
// file over 1 MB comes with an empty `content` and `encoding: "none"` (GitHub serves 1 to
// 100 MB only through the raw media type). The raw media type
// (`Accept: application/vnd.github.raw+json` or `.raw`) answers the bytes themselves. A
// missing file answers 404 `Not Found`; an unknown ref 404 `No commit found for the ref
// {ref}`. A folder answers the list of its entries (name, path, type only).
import { createHash } from 'node:crypto';
import { GitHubError, OPERATION_DOCS, notFound } from '../errors.js';
import { type Reply, type RequestContext, visibleRepository } from '../context.js';
import type { RepositoryRecord } from '../records.js';

/** GitHub gives the content of files up to 1 MB in the JSON answer. */
export const CONTENTS_JSON_LIMIT = 1024 * 1024;

/** The git blob id of some content: sha1 of `blob {size}\0{content}`. */
export function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** Base64 as GitHub writes it in contents answers: lines of 60 characters, each ended by a newline. */
export function githubBase64(content: Buffer): string {
  const text = content.toString('base64');
  let lines = '';
  for (let i = 0; i < text.length; i += 60) lines += `${text.slice(i, i + 60)}\n`;
  return lines;
}

const isRawMediaType = (accept: string): boolean => /application\/vnd\.github(\.v3)?\.raw(\+json)?\b/.test(accept);

export function getContent(
  ctx: RequestContext,
  repository: RepositoryRecord | undefined,
  pathSegments: string[],
): Reply {
  const docs = OPERATION_DOCS.getContent;
  const repo = visibleRepository(ctx, repository, docs);
  const ref = ctx.url.searchParams.get('ref') || repo.defaultBranch;
  const files = ctx.state.filesAt(repo, ref);
  if (!files) throw new GitHubError(404, `No commit found for the ref ${ref}`, docs);
  const path = pathSegments.join('/');
  const fullName = `${repo.owner.login}/${repo.name}`;
  const api = `${ctx.urls.api}/repos/${fullName}`;
  const content = files.get(path);
  if (content === undefined) {
    const prefix = path === '' ? '' : `${path}/`;
    const entries = new Map<string, 'file' | 'dir'>();
    for (const file of files.keys()) {
      if (!file.startsWith(prefix)) continue;
      const [name = '', ...deeper] = file.slice(prefix.length).split('/');
      entries.set(name, deeper.length > 0 ? 'dir' : 'file');
    }
    if (entries.size === 0 && path !== '') throw notFound(docs);
    return {
      status: 200,
      body: [...entries]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, type]) => ({ name, path: `${prefix}${name}`, type })),
    };
  }
  if (isRawMediaType(ctx.accept)) return { status: 200, raw: content };
  const sha = gitBlobSha(content);
  const name = pathSegments[pathSegments.length - 1] ?? '';
  const self = `${api}/contents/${path}?ref=${encodeURIComponent(ref)}`;
  const html = `${ctx.urls.server}/${fullName}/blob/${ref}/${path}`;
  const git = `${api}/git/blobs/${sha}`;
  const withinLimit = content.length <= CONTENTS_JSON_LIMIT;
  return {
    status: 200,
    body: {
      name,
      path,
      sha,
      size: content.length,
      url: self,
      html_url: html,
      git_url: git,
      download_url: repo.private ? null : `https://raw.githubusercontent.com/${fullName}/${ref}/${path}`,
      type: 'file',
      content: withinLimit ? githubBase64(content) : '',
      encoding: withinLimit ? 'base64' : 'none',
      _links: { self, git, html },
    },
  };
}
