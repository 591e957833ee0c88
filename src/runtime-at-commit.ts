// The runtime as it was at another commit (fleet membership: the clusters the fleet had
// before this change). The runtime files are named as the head's are (the `runtime` input,
// `-r`), relative to the working directory; each is turned into its repository path (from
// the root of the git work tree that holds it, else the workspace) and read at the commit
// by a reader: git from the local clone (../git-revision.ts) or GitHub's contents endpoint
// (github/contents.ts). Files the commit did not have are left out; when none existed
// there, there is no base runtime (a first pull request: nothing leaves).
//
// The runtime at the commit is evaluated from that commit's files only: the working
// directory's cue.mod (module.cue and every package under it that a runtime may import) is
// read at the commit by the same reader, and loaded with the runtime files in the engine's
// in-memory workspace, which reads nothing from the disk. A cue.mod the commit did not have
// is none (never the head's): a pull request that changes only cue.mod cannot change which
// clusters the base had, and so which clusters leave or stay. The bounds are the head's:
// at most WALK_ENTRY_LIMIT files and folders, and CUE_MODULE_BYTES_LIMIT bytes together.
import { join, resolve } from 'node:path';
import { loadRuntime, type Runtime, type SourceFile } from './bundle/index.js';
import { sourceFormat, WALK_ENTRY_LIMIT } from './bundle/sources.js';
import type { CueEngine } from './cue/index.js';
import { gitWorkTreeOf, repositoryPathOf } from './git-revision.js';

/** A runtime file named by the run, and where it lives in the repository. */
export interface RuntimeFileLocation {
  /** As the run names it (`deploy/runtime.cue`, relative to the working directory). */
  shownAs: string;
  absolutePath: string;
  /** The git work tree holding it, if there is one inside the workspace. */
  workTree?: string;
  /** Its path in the repository (from the work tree's root, else from the workspace). */
  repositoryPath: string;
}

/** The working directory's cue.mod folder, and where it lives in the repository. */
export interface CueModuleLocation {
  /** The working directory (cue.mod's files are named from it: `cue.mod/module.cue`). */
  cwd: string;
  /** The git work tree holding it, if there is one inside the workspace. */
  workTree?: string;
  /** Its path in the repository (`deploy/cue.mod`, from the work tree's root, else from the workspace). */
  repositoryPath: string;
}

/** How much the cue.mod folder read at a commit may hold: the head walk's count, and its bytes together. */
export const CUE_MODULE_LIMITS = { entries: WALK_ENTRY_LIMIT, bytes: 12 * 1024 * 1024 } as const;

/** Where the working directory's cue.mod lives in the repository. Throws for a working directory outside `workspace`. */
export function locateCueModule(cwd: string, workspace: string): CueModuleLocation {
  const folder = join(resolve(cwd), 'cue.mod');
  const workTree = gitWorkTreeOf(folder, workspace);
  let repositoryPath: string;
  try {
    repositoryPath = repositoryPathOf(folder, workTree ?? workspace);
  } catch {
    throw new Error(
      `the working directory ${cwd} is not inside the workspace ${workspace}; its cue.mod cannot be read at another commit`,
    );
  }
  return { cwd: resolve(cwd), ...(workTree ? { workTree } : {}), repositoryPath };
}

/**
 * The cue.mod files as the engine is given them (keys from the working directory,
 * `cue.mod/module.cue`), from the folder's files read at the commit (repository paths);
 * empty when the commit had no cue.mod there.
 */
export function cueModuleFilesAtCommit(
  location: CueModuleLocation,
  files: ReadonlyArray<{ repositoryPath: string; text: string }> | undefined,
): Record<string, string> {
  const moduleFiles: Record<string, string> = {};
  for (const file of files ?? []) {
    if (!file.repositoryPath.startsWith(`${location.repositoryPath}/`))
      throw new Error(`${file.repositoryPath} is not inside ${location.repositoryPath}`);
    moduleFiles[`cue.mod/${file.repositoryPath.slice(location.repositoryPath.length + 1)}`] = file.text;
  }
  return moduleFiles;
}

/** Reads one repository path at the commit: its text, or undefined when the commit did not have it. */
export type CommitFileReader = (location: RuntimeFileLocation) => string | undefined;

export interface RuntimeAtCommit {
  runtime: Runtime;
  /** The files read (as the run names them), in the order given. */
  files: string[];
  /** The files the commit did not have. */
  missing: string[];
}

/**
 * Where each runtime file lives in the repository. Throws for a file outside `workspace`
 * (a path such as `../x.cue`): nothing outside the repository is read at another commit.
 */
export function locateRuntimeFiles(
  runtimeFiles: readonly string[],
  cwd: string,
  workspace: string,
): RuntimeFileLocation[] {
  return runtimeFiles.map((shownAs) => {
    const absolutePath = resolve(cwd, shownAs);
    const workTree = gitWorkTreeOf(absolutePath, workspace);
    let repositoryPath: string;
    try {
      repositoryPath = repositoryPathOf(absolutePath, workTree ?? workspace);
    } catch {
      throw new Error(
        `runtime file ${shownAs} is not inside the workspace ${workspace}; it cannot be read at another commit`,
      );
    }
    return { shownAs, absolutePath, ...(workTree ? { workTree } : {}), repositoryPath };
  });
}

/**
 * The runtime made of the files as they were at the commit, or undefined when none of them
 * existed there; `moduleFilesAtCommit` are the cue.mod files as they were at the same commit
 * (cueModuleFilesAtCommit), never the working directory's. Throws when a file cannot be
 * read, and when the files do not load as a runtime (CueFilesError, with the files' own
 * paths and lines).
 */
export function loadRuntimeAtCommit(
  engine: CueEngine,
  locations: readonly RuntimeFileLocation[],
  read: CommitFileReader,
  moduleFilesAtCommit: Record<string, string>,
): RuntimeAtCommit | undefined {
  const sources: SourceFile[] = [];
  const missing: string[] = [];
  for (const location of locations) {
    const content = read(location);
    if (content === undefined) missing.push(location.shownAs);
    else
      sources.push({
        path: location.shownAs,
        absolutePath: location.absolutePath,
        format: sourceFormat(location.shownAs),
        content,
      });
  }
  if (sources.length === 0) return undefined;
  return { runtime: loadRuntime(engine, sources, moduleFilesAtCommit, ''), files: sources.map((s) => s.path), missing };
}
