// Whether git tracks a file in the checkout, read from the git index itself: the action may
// run no binary, and a git library (isomorphic-git) would be far too large for one question.
// Report mode uses it to refuse a ChangeSet file that the repository holds (changes-file.ts):
// the matrix jobs' files are downloaded artifacts, never committed.
//
// The repositories of a file are found from its folder up to the workspace: a `.git` folder,
// or a `.git` file (`gitdir: <path>`, as worktrees and submodules have), whose work tree is
// the folder holding it. Every repository on the way is asked, the nearest first. The index
// (https://git-scm.com/docs/index-format) is read in versions 2, 3 and 4 (v4's paths are
// prefix-compressed), with SHA-1 or SHA-256 object names (the repository's
// `extensions.objectFormat`); paths compare ignoring case where `core.ignoreCase` says so. A split index (`link` extension) is read with its shared index,
// and the union of both is taken as tracked: a superset, never less. A sparse index's
// directory entries (`sdir`) track every path below them. What cannot be read (an unknown
// required extension, an index version or layout this reader does not know, a wrong
// checksum) throws GitIndexError: the caller cannot tell, and refuses (fails closed).
// No repository at all means nothing is tracked.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export class GitIndexError extends Error {
  override name = 'GitIndexError';
}

/** A file that git tracks: the work tree of the repository that tracks it, and its path there. */
export interface TrackedFile {
  workTree: string;
  path: string;
}

/** The paths an index holds, as raw bytes (latin1 strings, one character per byte). */
interface IndexPaths {
  files: Set<string>;
  /** Sparse directory entries, each ending with `/`. */
  directories: string[];
}

const SIGNATURE = 'DIRC';
/** ctime, mtime (seconds and nanoseconds), dev, ino, mode, uid, gid, size: ten 32-bit fields. */
const STAT_BYTES = 40;
const EXTENDED_FLAG = 0x4000;
const NAME_MASK = 0x0fff;
const SPARSE_DIRECTORY_MODE = 0o040000;

/** A file of a git directory, read; a failure to read it is a GitIndexError (cannot tell). */
function readGitFile(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new GitIndexError(`${path} cannot be read: ${(error as Error).message}`);
  }
}

/** The folder a `.git` entry names as the repository's git directory, or undefined when `folder` has no `.git`. */
function gitDirectoryOf(folder: string): string | undefined {
  const dotGit = join(folder, '.git');
  let stat;
  try {
    stat = statSync(dotGit);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return undefined;
    throw new GitIndexError(`${dotGit} cannot be read: ${(error as Error).message}`);
  }
  if (stat.isDirectory()) return dotGit;
  if (!stat.isFile()) throw new GitIndexError(`${dotGit} is neither a folder nor a "gitdir:" file`);
  const text = readGitFile(dotGit).toString('utf8');
  const match = /^gitdir: *(.+?)\s*$/m.exec(text);
  if (!match?.[1]) throw new GitIndexError(`${dotGit} is a file without a "gitdir:" line`);
  const gitDir = isAbsolute(match[1]) ? match[1] : resolve(folder, match[1]);
  if (!existsSync(gitDir)) throw new GitIndexError(`${dotGit} names the git directory ${gitDir}, which does not exist`);
  return gitDir;
}

interface RepositoryConfig {
  /** The hash of objects and of the index: SHA-1 unless `extensions.objectFormat = sha256`. */
  hash: { algorithm: 'sha1' | 'sha256'; bytes: number };
  /** `core.ignoreCase` (git sets it on a case-insensitive file system): paths are compared ignoring case. */
  ignoreCase: boolean;
}

/** What of the repository's config the index's reading needs. */
function repositoryConfig(gitDir: string): RepositoryConfig {
  // A worktree's git directory names the shared one in `commondir`; the config is there.
  const commonDirFile = join(gitDir, 'commondir');
  const commonDir = existsSync(commonDirFile)
    ? resolve(gitDir, readGitFile(commonDirFile).toString('utf8').trim())
    : gitDir;
  const configPath = join(commonDir, 'config');
  const config = existsSync(configPath) ? readGitFile(configPath).toString('utf8') : '';
  return {
    hash: /^\s*objectformat\s*=\s*sha256\s*$/im.test(config)
      ? { algorithm: 'sha256', bytes: 32 }
      : { algorithm: 'sha1', bytes: 20 },
    ignoreCase: /^\s*ignorecase\s*=\s*true\s*$/im.test(config),
  };
}

/** git's varint of index v4 (and of the offset encoding): 7 bits a byte, each continuation adds one. */
function readVarint(data: Buffer, start: number, where: string): { value: number; next: number } {
  let offset = start;
  const byteAt = (at: number): number => {
    const byte = data[at];
    if (byte === undefined) throw new GitIndexError(`${where}: truncated`);
    return byte;
  };
  let byte = byteAt(offset++);
  let value = byte & 0x7f;
  while (byte & 0x80) {
    byte = byteAt(offset++);
    value = (value + 1) * 128 + (byte & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER / 256) throw new GitIndexError(`${where}: a path prefix length out of range`);
  }
  return { value, next: offset };
}

/** Reads one index file: its paths, and the shared index it refers to (split index) if any. */
function parseIndex(
  path: string,
  hash: { algorithm: 'sha1' | 'sha256'; bytes: number },
): { paths: IndexPaths; sharedIndex?: string } {
  const data = readGitFile(path);
  const fail = (why: string): never => {
    throw new GitIndexError(`${path}: ${why}`);
  };
  if (data.length < 12 + hash.bytes || data.toString('latin1', 0, 4) !== SIGNATURE)
    fail('not a git index (no "DIRC" signature)');
  const version = data.readUInt32BE(4);
  if (version < 2 || version > 4) fail(`index version ${version}, this reader knows versions 2, 3 and 4`);
  const end = data.length - hash.bytes;
  const checksum = data.subarray(end);
  // index.skipHash writes zeros instead of the checksum.
  if (
    !checksum.every((byte) => byte === 0) &&
    !createHash(hash.algorithm).update(data.subarray(0, end)).digest().equals(checksum)
  ) {
    fail(`its ${hash.algorithm} checksum does not match (a corrupt or partly written index)`);
  }

  const count = data.readUInt32BE(8);
  const paths: IndexPaths = { files: new Set(), directories: [] };
  let offset = 12;
  let previous: Buffer = Buffer.alloc(0);
  for (let entry = 0; entry < count; entry++) {
    const start = offset;
    const fixed = STAT_BYTES + hash.bytes + 2;
    if (start + fixed > end) fail(`truncated at entry ${entry} of ${count}`);
    const mode = data.readUInt32BE(start + 24);
    const flags = data.readUInt16BE(start + STAT_BYTES + hash.bytes);
    let nameStart = start + fixed;
    if (flags & EXTENDED_FLAG) {
      if (version < 3) fail(`entry ${entry} has extended flags in a version ${version} index`);
      nameStart += 2;
    }
    let name: Buffer;
    if (version === 4) {
      const strip = readVarint(data, nameStart, `${path}: entry ${entry}`);
      if (strip.value > previous.length)
        fail(`entry ${entry} strips ${strip.value} bytes from a path of ${previous.length}`);
      const nul = data.indexOf(0, strip.next);
      if (nul < 0 || nul >= end) fail(`entry ${entry}'s path is not terminated`);
      name = Buffer.concat([previous.subarray(0, previous.length - strip.value), data.subarray(strip.next, nul)]);
      offset = nul + 1;
    } else {
      const length = flags & NAME_MASK;
      // A name of 0xFFF bytes or more is stored with length 0xFFF: its end is the NUL.
      const nul = length < NAME_MASK ? nameStart + length : data.indexOf(0, nameStart + NAME_MASK);
      if (nul < 0 || nul >= end || data[nul] !== 0) fail(`entry ${entry}'s path is not terminated`);
      name = data.subarray(nameStart, nul);
      // Entries are padded with 1 to 8 NUL bytes to a multiple of 8 bytes.
      offset = start + ((nameStart - start + name.length + 8) & ~7);
    }
    if (offset > end) fail(`truncated at entry ${entry} of ${count}`);
    previous = name;
    const text = name.toString('latin1');
    if ((mode & 0o170000) === SPARSE_DIRECTORY_MODE && text.endsWith('/')) paths.directories.push(text);
    else paths.files.add(text);
  }

  let sharedIndex: string | undefined;
  while (offset + 8 <= end) {
    const signature = data.toString('latin1', offset, offset + 4);
    const size = data.readUInt32BE(offset + 4);
    const body = offset + 8;
    if (body + size > end) fail(`extension ${JSON.stringify(signature)} runs past the end of the index`);
    if (signature === 'link') {
      // Split index: the shared index's object name, then bitmaps of the entries this index
      // replaces or deletes (not needed for a superset of the tracked paths).
      if (size < hash.bytes) fail('the split index extension ("link") is too short');
      const name = data.subarray(body, body + hash.bytes);
      if (!name.every((byte) => byte === 0)) sharedIndex = join(dirname(path), `sharedindex.${name.toString('hex')}`);
    } else if (signature === 'sdir') {
      // The index holds sparse directory entries: already taken as directories above.
    } else if (!/^[A-Z]/.test(signature)) {
      // git's rule: an extension whose signature begins with A-Z is optional, others are required.
      fail(
        `it has the extension ${JSON.stringify(signature)}, which git requires to be understood and this reader does not know`,
      );
    }
    offset = body + size;
  }
  if (offset !== end) fail('trailing bytes after the extensions');
  return { paths, ...(sharedIndex ? { sharedIndex } : {}) };
}

/** Every path the index of a git directory tracks (with its shared index); empty when it has no index. */
function readIndexPaths(gitDir: string): IndexPaths & { ignoreCase: boolean } {
  const indexPath = join(gitDir, 'index');
  const config = repositoryConfig(gitDir);
  if (!existsSync(indexPath)) return { files: new Set(), directories: [], ignoreCase: config.ignoreCase };
  const own = parseIndex(indexPath, config.hash);
  const paths = [own.paths];
  if (own.sharedIndex) {
    if (!existsSync(own.sharedIndex))
      throw new GitIndexError(`${indexPath} is a split index whose shared index ${own.sharedIndex} does not exist`);
    const shared = parseIndex(own.sharedIndex, config.hash);
    if (shared.sharedIndex) throw new GitIndexError(`${own.sharedIndex}: a shared index that is itself split`);
    paths.push(shared.paths);
  }
  // Compared ignoring case where git does: a superset again (other bytes may fold too).
  const fold = (path: string): string => (config.ignoreCase ? path.toLowerCase() : path);
  return {
    files: new Set(paths.flatMap((each) => [...each.files].map(fold))),
    directories: paths.flatMap((each) => each.directories.map(fold)),
    ignoreCase: config.ignoreCase,
  };
}

function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * The git repositories of a checkout, their indexes read once each. `top` is the highest
 * folder searched for a repository (the workspace), as given and after symlinks.
 */
export class GitCheckout {
  private readonly tops: string[];
  private readonly indexes = new Map<string, IndexPaths & { ignoreCase: boolean }>();

  constructor(top: string) {
    const given = resolve(top);
    let real = given;
    try {
      real = realpathSync(given);
    } catch {
      // A workspace that does not exist holds no repository; the path as given is searched.
    }
    this.tops = real === given ? [given] : [given, real];
  }

  /**
   * The repository that tracks `file` (an absolute path inside the top folder, as spelled
   * or after symlinks: a path through a symlink is asked as such), or null when none does.
   * Throws GitIndexError when an index on the way cannot be read: whether git tracks the
   * file cannot be told.
   */
  tracked(file: string): TrackedFile | null {
    const absolute = resolve(file);
    const top = this.tops.find((folder) => isInside(folder, absolute));
    if (top === undefined)
      throw new GitIndexError(`${absolute} is outside ${this.tops[0] ?? ''}, where its repository is looked for`);
    for (let folder = dirname(absolute); ; folder = dirname(folder)) {
      const gitDir = gitDirectoryOf(folder);
      if (gitDir) {
        const rel = relative(folder, absolute).split(sep).join('/');
        const paths = this.indexPaths(gitDir);
        const bytes = Buffer.from(rel, 'utf8').toString('latin1');
        const key = paths.ignoreCase ? bytes.toLowerCase() : bytes;
        if (paths.files.has(key) || paths.directories.some((directory) => key.startsWith(directory)))
          return { workTree: folder, path: rel };
      }
      if (folder === top || dirname(folder) === folder) return null;
    }
  }

  private indexPaths(gitDir: string): IndexPaths & { ignoreCase: boolean } {
    let paths = this.indexes.get(gitDir);
    if (!paths) {
      paths = readIndexPaths(gitDir);
      this.indexes.set(gitDir, paths);
    }
    return paths;
  }
}
