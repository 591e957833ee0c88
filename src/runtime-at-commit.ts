// The runtime as it was at another commit (fleet membership: the clusters the fleet had
// before this change). The runtime files are named as the head's are (the `runtime` input,
// `-r`), relative to the working directory; each is turned into its repository path (from
// the root of the git work tree that holds it, else the workspace) and read at the commit
// by a reader: git from the local clone (../git-revision.ts) or GitHub's contents endpoint
// (github/contents.ts). Files the commit did not have are left out; when none existed
// there, there is no base runtime (a first pull request: nothing leaves). What was read is
// loaded with the same engine, cue.mod and loadRuntime as the head runtime.
import { resolve } from 'node:path';
import { loadRuntime, type Runtime, type SourceFile } from './bundle/index.js';
import { sourceFormat } from './bundle/sources.js';
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
 * existed there. Throws when a file cannot be read, and when the
 * files do not load as a runtime (CueFilesError, with the files' own paths and lines).
 */
export function loadRuntimeAtCommit(
  engine: CueEngine,
  locations: readonly RuntimeFileLocation[],
  read: CommitFileReader,
  moduleFiles: Record<string, string>,
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
  return { runtime: loadRuntime(engine, sources, moduleFiles, ''), files: sources.map((s) => s.path), missing };
}
