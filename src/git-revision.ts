// Files of the repository as they were at another commit, read with git from the local
// clone: what the base runtime is read from when the checkout holds that commit (a pull
// request's base with fetch-depth 2 or more, `--base-ref` on the command line).
//
// git is run without a shell (spawnSync, every value an argument of its own), in the work
// tree found here, and only reads objects: `rev-parse` to name the commit, `ls-tree` to find
// the file's blob, `cat-file blob` to read it (a folder, the base's cue.mod: one
// `ls-tree -r` for its files and sizes, one `cat-file --batch` for their blobs). None of these runs hooks, filters or
// textconv drivers. A partial clone does not fetch a missing object (GIT_NO_LAZY_FETCH), and
// git never asks for credentials (GIT_TERMINAL_PROMPT=0). Paths are repository paths
// (checkRepositoryPath): never absolute, never with a `..` part.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { checkRepositoryPath } from './github/contents.js';

/** git failed, or could not be run: the command and what git said. */
export class GitReadError extends Error {
  constructor(
    readonly args: readonly string[],
    message: string,
  ) {
    super(`git ${args.join(' ')}: ${message}`);
    this.name = 'GitReadError';
  }
}

const GIT_TIMEOUT_MS = 30_000;
/** A runtime file is small; this bounds what one answer of git may hold. */
const GIT_MAX_OUTPUT = 16 * 1024 * 1024;

interface GitAnswer {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** git run synchronously (a few local object reads): the CLI reads its inputs before anything else starts. */
function git(root: string, args: readonly string[], input?: string): GitAnswer {
  const all = ['-C', root, ...args];
  const result = spawnSync('git', all, {
    ...(input === undefined ? {} : { input }),
    timeout: GIT_TIMEOUT_MS,
    maxBuffer: GIT_MAX_OUTPUT,
    windowsHide: true,
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_NO_LAZY_FETCH: '1', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
  });
  if (result.error) {
    throw new GitReadError(
      all,
      (result.error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'git is not installed (not on PATH)'
        : result.error.message,
    );
  }
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr.toString('utf8').trim() };
}

/**
 * The git work tree that holds `path`: the nearest folder, from the path's own folder up to
 * `within` (included), that has a `.git`. git refuses to track a `.git` path, so what is
 * found was made by the checkout, not by the files of a commit. Undefined when there is none.
 */
export function gitWorkTreeOf(path: string, within: string): string | undefined {
  const top = resolve(within);
  for (let dir = dirname(resolve(path)); ; dir = dirname(dir)) {
    if (dir !== top && !dir.startsWith(top + sep)) return undefined;
    if (existsSync(join(dir, '.git'))) return dir;
    if (dir === top) return undefined;
  }
}

/** The repository path of `path` inside the work tree `root`; throws for a path outside it. */
export function repositoryPathOf(path: string, root: string): string {
  const inside = relative(resolve(root), resolve(path));
  if (inside === '' || inside.startsWith('..') || resolve(root, inside) !== resolve(path))
    throw new Error(`${path} is not inside the repository at ${root}`);
  return checkRepositoryPath(inside.split(sep).join('/'));
}

/**
 * The commit `ref` names in the clone at `root` (a commit id, a branch, a tag, `HEAD~1`), or
 * undefined when the clone does not have it. A ref that starts with `-` is refused.
 */
export function resolveCommit(root: string, ref: string): string | undefined {
  if (ref === '' || ref.startsWith('-') || /[\0\n]/.test(ref)) throw new GitReadError(['rev-parse', ref], 'not a ref');
  const answer = git(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (answer.code === 0) return answer.stdout.toString('utf8').trim();
  if (answer.code === 1) return undefined;
  throw new GitReadError(['rev-parse', '--verify', ref], answer.stderr || `exit code ${answer.code}`);
}

/**
 * The text of the file at `repositoryPath` in `commit` (a commit id), or undefined when the
 * commit has no such file. Throws for a folder, a symbolic link or a submodule at that path,
 * for content that is not UTF-8, and when git fails.
 */
export function readFileAtCommit(root: string, commit: string, repositoryPath: string): string | undefined {
  checkRepositoryPath(repositoryPath);
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new GitReadError(['ls-tree', commit], 'not a commit id');
  const where = `${repositoryPath} at ${commit}`;
  const listed = git(root, ['ls-tree', '-z', '--full-tree', commit, '--', repositoryPath]);
  if (listed.code !== 0)
    throw new GitReadError(['ls-tree', commit, '--', repositoryPath], listed.stderr || `exit code ${listed.code}`);
  const entry = listed.stdout
    .toString('utf8')
    .split('\0')
    .find((line) => line.endsWith(`\t${repositoryPath}`));
  if (!entry) return undefined;
  const [mode = '', type = '', object = ''] = entry.slice(0, entry.indexOf('\t')).split(' ');
  if (type !== 'blob' || mode === '120000')
    throw new Error(
      `${where} is ${mode === '120000' ? 'a symbolic link' : type === 'tree' ? 'a folder' : `a ${type}`}, not a file`,
    );
  const blob = git(root, ['cat-file', 'blob', object]);
  if (blob.code !== 0) throw new GitReadError(['cat-file', 'blob', object], blob.stderr || `exit code ${blob.code}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(blob.stdout);
  } catch {
    throw new Error(`${where} is not UTF-8 text`);
  }
}

/** How much a folder read at a commit may hold (readFolderAtCommit). */
export interface FolderLimits {
  /** Files and folders, counted together. */
  entries: number;
  /** The files' bytes, together; at most GIT_FOLDER_MAX_BYTES. */
  bytes: number;
}

/** One file of a folder read at a commit. */
export interface FileAtCommit {
  /** Its repository path (`deploy/cue.mod/module.cue`). */
  repositoryPath: string;
  text: string;
}

/** The most a folder's files may hold together when read with git (one answer of git, headers aside). */
export const GIT_FOLDER_MAX_BYTES = 12 * 1024 * 1024;

const decodeUtf8 = (bytes: Uint8Array, where: string): string => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${where} is not UTF-8 text`);
  }
};

/**
 * Every file under the folder `repositoryPath` in `commit` (a commit id), in path order, or
 * undefined when the commit has no such folder. Throws for a file, a symbolic link or a
 * submodule at that path or inside it (what the commit holds there is not a file: reading
 * something else in its place would be reading another commit's files), when the folder
 * holds more than the limits allow, for content that is not UTF-8, and when git fails. One
 * `ls-tree -r` lists the folder with the sizes, one `cat-file --batch` reads the blobs.
 */
export function readFolderAtCommit(
  root: string,
  commit: string,
  repositoryPath: string,
  limits: FolderLimits,
): FileAtCommit[] | undefined {
  checkRepositoryPath(repositoryPath);
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) throw new GitReadError(['ls-tree', commit], 'not a commit id');
  const where = `${repositoryPath} at ${commit}`;
  const args = ['ls-tree', '-r', '-t', '-l', '-z', '--full-tree', commit, '--', repositoryPath];
  const listed = git(root, args);
  if (listed.code !== 0) throw new GitReadError(args, listed.stderr || `exit code ${listed.code}`);
  const blobs: Array<{ path: string; object: string; size: number }> = [];
  let entries = 0;
  let bytes = 0;
  for (const line of listed.stdout.toString('utf8').split('\0')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const path = line.slice(tab + 1);
    if (path !== repositoryPath && !path.startsWith(`${repositoryPath}/`)) continue;
    const [mode = '', type = '', object = '', size = ''] = line.slice(0, tab).split(/ +/);
    if (path === repositoryPath && type !== 'tree')
      throw new Error(
        `${where} is ${mode === '120000' ? 'a symbolic link' : `a ${type === 'blob' ? 'file' : type}`}, not a folder`,
      );
    if (path === repositoryPath) continue;
    if (++entries > limits.entries) throw new Error(`${where}: more than ${limits.entries} files and folders`);
    if (type === 'tree') continue;
    if (type !== 'blob' || mode === '120000')
      throw new Error(`${path} at ${commit} is ${mode === '120000' ? 'a symbolic link' : `a ${type}`}, not a file`);
    bytes += Number(size);
    if (!Number.isSafeInteger(bytes) || bytes > Math.min(limits.bytes, GIT_FOLDER_MAX_BYTES))
      throw new Error(`${where}: its files hold more than ${Math.min(limits.bytes, GIT_FOLDER_MAX_BYTES)} bytes`);
    blobs.push({ path, object, size: Number(size) });
  }
  if (entries === 0) return undefined;
  if (blobs.length === 0) return [];
  const batch = git(root, ['cat-file', '--batch'], blobs.map((blob) => `${blob.object}\n`).join(''));
  if (batch.code !== 0) throw new GitReadError(['cat-file', '--batch'], batch.stderr || `exit code ${batch.code}`);
  // Each answer: `<object> blob <size>\n<content>\n`, in the order asked.
  const files: FileAtCommit[] = [];
  let offset = 0;
  for (const blob of blobs) {
    const end = batch.stdout.indexOf(0x0a, offset);
    const header = end < 0 ? '' : batch.stdout.subarray(offset, end).toString('utf8');
    if (header !== `${blob.object} blob ${blob.size}`)
      throw new GitReadError(['cat-file', '--batch'], `unexpected answer ${JSON.stringify(header)} for ${blob.path}`);
    const content = batch.stdout.subarray(end + 1, end + 1 + blob.size);
    files.push({ repositoryPath: blob.path, text: decodeUtf8(content, `${blob.path} at ${commit}`) });
    offset = end + 1 + blob.size + 1;
  }
  return files.sort((a, b) => (a.repositoryPath < b.repositoryPath ? -1 : a.repositoryPath > b.repositoryPath ? 1 : 0));
}

/** Whether the clone at `root` holds the commit `commit` (a shallow checkout may not). */
export function hasCommit(root: string, commit: string): boolean {
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(commit)) return false;
  const answer = git(root, ['cat-file', '-e', `${commit}^{commit}`]);
  return answer.code === 0;
}
