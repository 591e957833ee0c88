// One file of the repository at a commit, through GitHub's contents endpoint
// (`GET /repos/{owner}/{repo}/contents/{path}?ref={sha}`) with the job's token: what lets a
// shallow checkout read a file as it was at another commit (the pull request's base, the
// push's `before`). Needs the `contents: read` permission.
//
// GitHub answers a file up to 1 MB with its content base64-encoded (lines of 60 characters);
// a larger file comes without it (`encoding: "none"`), and is refused here with what to do
// instead: a runtime file is never that large. A 404 `Not Found` is a file that does not
// exist at that commit (undefined) once the commit's top folder is readable (else the token
// may not read contents, which throws); any other 404 (GitHub says `No commit found for the ref
// ...`) and every other failure throw, with the path and the commit.
import { GitHubApiError, type GitHubApi } from './api.js';
import type { RepositoryTarget } from './issues.js';

/** A file as it was at a commit. */
export interface RepositoryFile {
  /** The repository path (`deploy/runtime.cue`). */
  path: string;
  ref: string;
  text: string;
  /** Its git blob id. */
  sha: string;
}

/** The file fields of GitHub's `content-file` object that are read here. */
interface ContentFile {
  type?: string;
  encoding?: string;
  content?: string;
  sha?: string;
  size?: number;
}

/** A repository path: forward slashes, no leading slash, no `.` or `..` part. */
export function checkRepositoryPath(path: string): string {
  if (
    path === '' ||
    path.startsWith('/') ||
    path.includes('\\') ||
    path.split('/').some((part) => part === '' || part === '.' || part === '..')
  ) {
    throw new Error(`${JSON.stringify(path)} is not a path inside the repository`);
  }
  return path;
}

/**
 * A 404 `Not Found` is also what a token that may not read the repository's contents gets
 * (a private repository without `contents: read`): the commit's top folder tells the two
 * apart. Readable: the file is missing. Not: the contents cannot be read, which throws.
 */
async function checkCommitReadable(
  client: GitHubApi,
  target: RepositoryTarget,
  ref: string,
  where: string,
): Promise<void> {
  const top = `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}/contents/?ref=${encodeURIComponent(ref)}`;
  try {
    await client.request<unknown>('GET', top);
  } catch (error) {
    if (error instanceof GitHubApiError && error.status === 404) {
      throw new Error(
        `${where}: GitHub answers 404 for the file and for the commit's top folder (${error.apiMessage}); does the job's token have the permission contents: read?`,
        { cause: error },
      );
    }
    throw error;
  }
}

const contentsPath = (target: RepositoryTarget, path: string, ref: string): string =>
  `/repos/${encodeURIComponent(target.owner)}/${encodeURIComponent(target.repo)}/contents/${path.split('/').map(encodeURIComponent).join('/')}?ref=${encodeURIComponent(ref)}`;

/**
 * The file at `path` as it was at `ref`, or undefined when it did not exist there. Throws
 * for a folder or a symbolic link at that path, a file over 1 MB, content that is not UTF-8
 * text, an unknown ref and every failure of the request (GitHubApiError).
 */
export async function readRepositoryFile(
  client: GitHubApi,
  target: RepositoryTarget,
  path: string,
  ref: string,
): Promise<RepositoryFile | undefined> {
  checkRepositoryPath(path);
  const where = `${path} at ${ref}`;
  let data: ContentFile | ContentFile[];
  try {
    data = (await client.request<ContentFile | ContentFile[]>('GET', contentsPath(target, path, ref))).data;
  } catch (error) {
    if (error instanceof GitHubApiError && error.status === 404 && error.apiMessage === 'Not Found') {
      await checkCommitReadable(client, target, ref, where);
      return undefined;
    }
    if (error instanceof GitHubApiError && error.status === 404)
      throw new Error(`${where}: GitHub does not know this commit (${error.apiMessage})`, { cause: error });
    if (error instanceof GitHubApiError && error.status === 403)
      throw new Error(`${where}: ${error.message}; does the job's token have the permission contents: read?`, {
        cause: error,
      });
    throw error;
  }
  if (Array.isArray(data)) throw new Error(`${where} is a folder, not a file`);
  if (data.type !== 'file') throw new Error(`${where} is a ${data.type ?? 'thing without a type'}, not a file`);
  if (data.encoding === 'none' || (data.content === '' && (data.size ?? 0) > 0)) {
    throw new Error(
      `${where} has ${data.size ?? 'more than 1 MB of'} bytes; GitHub's contents API gives files over 1 MB without their content. Check out that commit instead (actions/checkout with a fetch-depth that reaches it)`,
    );
  }
  if (data.encoding !== 'base64' || typeof data.content !== 'string')
    throw new Error(`${where}: GitHub answered content in the encoding ${JSON.stringify(data.encoding)}, not base64`);
  const bytes = Buffer.from(data.content.replace(/\s+/g, ''), 'base64');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${where} is not UTF-8 text`);
  }
  return { path, ref, text, sha: data.sha ?? '' };
}

/** GitHub lists at most this many entries of one folder through the contents endpoint. */
export const CONTENTS_FOLDER_LISTING_LIMIT = 1000;

/** How much a folder read at a commit may hold (readRepositoryFolder). */
export interface RepositoryFolderLimits {
  /** Files and folders, counted together. */
  entries: number;
  /** The files' bytes, together. */
  bytes: number;
}

/** An entry of a folder listing of the contents endpoint (the fields read here). */
interface ContentEntry {
  type?: string;
  path?: string;
}

/**
 * Every file under the folder `path` as it was at `ref`, recursively, in path order, or
 * undefined when the folder did not exist there. One request lists each folder, one reads
 * each file (readRepositoryFile). Throws when `path` is a file, for a symbolic link or a
 * submodule inside (not a file of that commit), for a folder of 1,000 entries or more (the
 * endpoint lists no more, so the listing may be cut), when the folder holds more than the
 * limits allow, and for every failure readRepositoryFile throws for.
 */
export async function readRepositoryFolder(
  client: GitHubApi,
  target: RepositoryTarget,
  path: string,
  ref: string,
  limits: RepositoryFolderLimits,
): Promise<RepositoryFile[] | undefined> {
  checkRepositoryPath(path);
  const where = `${path} at ${ref}`;
  let entries = 0;
  let bytes = 0;
  const files: RepositoryFile[] = [];
  const list = async (folder: string): Promise<boolean> => {
    let data: ContentFile | ContentEntry[];
    try {
      data = (await client.request<ContentFile | ContentEntry[]>('GET', contentsPath(target, folder, ref))).data;
    } catch (error) {
      if (
        folder === path &&
        error instanceof GitHubApiError &&
        error.status === 404 &&
        error.apiMessage === 'Not Found'
      ) {
        await checkCommitReadable(client, target, ref, where);
        return false;
      }
      if (error instanceof GitHubApiError && error.status === 404)
        throw new Error(`${folder} at ${ref}: GitHub does not know this commit or folder (${error.apiMessage})`, {
          cause: error,
        });
      throw error;
    }
    if (!Array.isArray(data))
      throw new Error(`${folder} at ${ref} is a ${data.type ?? 'thing without a type'}, not a folder`);
    if (data.length >= CONTENTS_FOLDER_LISTING_LIMIT)
      throw new Error(
        `${folder} at ${ref} has ${CONTENTS_FOLDER_LISTING_LIMIT} entries or more: GitHub's contents endpoint lists no more, so it cannot be read whole. Check out that commit instead (actions/checkout with a fetch-depth that reaches it)`,
      );
    for (const entry of data) {
      const inside = entry.path ?? '';
      if (!inside.startsWith(`${folder}/`))
        throw new Error(`${folder} at ${ref}: GitHub listed ${JSON.stringify(inside)} in it`);
      if (++entries > limits.entries) throw new Error(`${where}: more than ${limits.entries} files and folders`);
      if (entry.type === 'dir') await list(inside);
      else if (entry.type === 'file') {
        const file = await readRepositoryFile(client, target, inside, ref);
        if (!file) throw new Error(`${inside} at ${ref}: listed in its folder, then not found`);
        bytes += Buffer.byteLength(file.text, 'utf8');
        if (bytes > limits.bytes) throw new Error(`${where}: its files hold more than ${limits.bytes} bytes`);
        files.push(file);
      } else throw new Error(`${inside} at ${ref} is a ${entry.type ?? 'thing without a type'}, not a file`);
    }
    return true;
  };
  if (!(await list(path))) return undefined;
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
