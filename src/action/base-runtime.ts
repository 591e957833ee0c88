// Where the action's base runtime comes from (fleet membership): the runtime file(s) of the
// `runtime` input as they were at the commit before the run's change, the pull request's
// base (`pull_request.base.sha`) or the push's `before` (github/event.ts baseCommitOf).
//
// The runtime is evaluated from the base commit's files only: the working directory's
// cue.mod is read at the base as well (../runtime-at-commit.ts), by the same reader, and a
// cue.mod the base did not have is none, never the head's.
//
// Each file is read with git when the checkout holds that commit (a pull request's base
// with `fetch-depth: 2` or more; no request, and GitHub Enterprise Server without the
// permission works too), else through GitHub's contents endpoint with the job's token
// (`contents: read`), so that a shallow checkout works. git failing (not installed, a
// container's "dubious ownership") falls back to the API, said in the log.
//
// Nothing here fails the run: a base runtime that cannot be read or does not evaluate
// becomes `baseRuntimeWarning` (redacted), and the run goes on without membership
// changes, which the reports say. A runtime file that did not exist at the base (a first
// pull request, a runtime moved to a new path) gives no base runtime: no cluster leaves.
//
// The `runtime` and `working-directory` inputs come from the workflow file, which on a
// pull request is the pull request's own version: it may point them at another file of the
// base commit. That file is the base branch's (reviewed) content, read inside the
// repository only, and a diff deletes nothing; a rollout (push, merged pull request) runs
// the merged workflow file.
import { GitHubApi } from '../github/api.js';
import { readRepositoryFile, readRepositoryFolder } from '../github/contents.js';
import { baseCommitOf, type RunContext } from '../github/event.js';
import type { CueEngine } from '../cue/index.js';
import type { Runtime } from '../bundle/index.js';
import { hasCommit, readFileAtCommit, readFolderAtCommit } from '../git-revision.js';
import {
  CUE_MODULE_LIMITS,
  cueModuleFilesAtCommit,
  loadRuntimeAtCommit,
  locateCueModule,
  locateRuntimeFiles,
  type CueModuleLocation,
  type RuntimeFileLocation,
} from '../runtime-at-commit.js';

export interface BaseRuntimeInputs {
  context: RunContext;
  /** The `runtime` input, as given (relative to the working directory). */
  runtimeFiles: readonly string[];
  /** The working directory (GITHUB_WORKSPACE joined with `working-directory`). */
  cwd: string;
  workspace: string;
  engine: CueEngine;
  /** The job's token (`github-token`); empty: anonymous requests (public repositories only). */
  githubToken: string;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Every secret of the run taken out of a text (the warning is shown as is). */
  redact: (text: string) => string;
}

export interface BaseRuntimeOutcome {
  baseRuntime?: { runtime: Runtime; from: string };
  baseRuntimeWarning?: string;
}

type ReadVia = 'git' | 'the GitHub API';

/** Reads the commit's files: git when the work tree holds the commit, else the contents endpoint. */
interface CommitReader {
  /** One runtime file's text, or undefined when the commit did not have it. */
  file(location: RuntimeFileLocation): Promise<string | undefined>;
  /** The files of the cue.mod folder, or undefined when the commit did not have it. */
  cueModule(location: CueModuleLocation): Promise<Array<{ repositoryPath: string; text: string }> | undefined>;
}

function commitReader(inputs: BaseRuntimeInputs, sha: string, via: Set<ReadVia>): CommitReader {
  const present = new Map<string, boolean>();
  let api: GitHubApi | undefined;
  const client = (): GitHubApi => {
    api ??= new GitHubApi({
      apiUrl: inputs.context.apiUrl,
      token: inputs.githubToken,
      signal: inputs.signal,
      log: inputs.log,
    });
    via.add('the GitHub API');
    return api;
  };
  const target = { owner: inputs.context.owner, repo: inputs.context.repo };
  /** Whether git can read the commit in the work tree (once per tree; a git that fails is said in the log). */
  const gitHas = (tree: string | undefined): boolean => {
    if (!tree) return false;
    let has = present.get(tree);
    if (has === undefined) {
      try {
        has = hasCommit(tree, sha);
      } catch (error) {
        inputs.log(
          `fleet membership: git cannot read the checkout (${error instanceof Error ? error.message : String(error)}); reading the base runtime through the GitHub API`,
        );
        has = false;
      }
      present.set(tree, has);
    }
    return has;
  };
  /** What git read, or undefined (said in the log) when git failed: then the API is asked. */
  const throughGit = <T>(
    tree: string | undefined,
    shownAs: string,
    read: (tree: string) => T,
  ): { read: T } | undefined => {
    if (!tree || !gitHas(tree)) return undefined;
    try {
      const result = read(tree);
      via.add('git');
      return { read: result };
    } catch (error) {
      inputs.log(
        `fleet membership: git could not read ${shownAs} at ${sha.slice(0, 7)} (${error instanceof Error ? error.message : String(error)}); trying the GitHub API`,
      );
      return undefined;
    }
  };
  return {
    async file(location) {
      const fromGit = throughGit(location.workTree, location.shownAs, (tree) =>
        readFileAtCommit(tree, sha, location.repositoryPath),
      );
      if (fromGit) return fromGit.read;
      return (await readRepositoryFile(client(), target, location.repositoryPath, sha))?.text;
    },
    async cueModule(location) {
      const fromGit = throughGit(location.workTree, location.repositoryPath, (tree) =>
        readFolderAtCommit(tree, sha, location.repositoryPath, CUE_MODULE_LIMITS),
      );
      if (fromGit) return fromGit.read;
      const files = await readRepositoryFolder(client(), target, location.repositoryPath, sha, CUE_MODULE_LIMITS);
      return files?.map((file) => ({ repositoryPath: file.path, text: file.text }));
    },
  };
}

/** The base runtime of the run's event, or why there is none, or the warning that replaces it. */
export async function readBaseRuntime(inputs: BaseRuntimeInputs): Promise<BaseRuntimeOutcome> {
  if (inputs.runtimeFiles.length === 0) return {};
  const base = baseCommitOf(inputs.context);
  if (!base.commit) {
    inputs.log(
      `fleet membership: no base runtime (${base.none ?? 'no base commit'}); no cluster leaves the fleet in this run`,
    );
    return {};
  }
  const { sha, role } = base.commit;
  const at = `base commit ${sha.slice(0, 7)} (${role})`;
  const via = new Set<ReadVia>();
  const warning = (what: string, error: unknown): BaseRuntimeOutcome => ({
    baseRuntimeWarning: inputs.redact(
      `the runtime at ${at} ${what}: ${error instanceof Error ? error.message : String(error)}`,
    ),
  });
  let locations: RuntimeFileLocation[];
  try {
    locations = locateRuntimeFiles(inputs.runtimeFiles, inputs.cwd, inputs.workspace);
  } catch (error) {
    return warning('cannot be located', error);
  }
  const reader = commitReader(inputs, sha, via);
  // Reading and loading are told apart: only reading goes to git or GitHub.
  const texts = new Map<string, string | undefined>();
  let moduleFiles: Record<string, string>;
  try {
    for (const location of locations) texts.set(location.shownAs, await reader.file(location));
    // The base's own cue.mod, never the head's (a pull request could change which clusters the base had).
    const cueModule = locateCueModule(inputs.cwd, inputs.workspace);
    moduleFiles = [...texts.values()].some((text) => text !== undefined)
      ? cueModuleFilesAtCommit(cueModule, await reader.cueModule(cueModule))
      : {};
  } catch (error) {
    return warning('could not be read', error);
  }
  let loaded: ReturnType<typeof loadRuntimeAtCommit>;
  try {
    loaded = loadRuntimeAtCommit(inputs.engine, locations, (location) => texts.get(location.shownAs), moduleFiles);
  } catch (error) {
    return warning('does not evaluate', error);
  }
  const paths = locations.map((l) => l.repositoryPath).join(', ');
  if (!loaded) {
    inputs.log(`fleet membership: ${paths} did not exist at ${at}; no cluster leaves the fleet in this run`);
    return {};
  }
  if (loaded.runtime.isDefault) {
    inputs.log(`fleet membership: the runtime at ${at} lists no clusters; no cluster leaves the fleet in this run`);
    return {};
  }
  if (loaded.missing.length > 0)
    inputs.log(
      `fleet membership: ${loaded.missing.join(', ')} did not exist at ${at}; the base runtime is the other file(s)`,
    );
  const from = `${loaded.files.join(', ')} at ${at}, read with ${[...via].join(' and ')}`;
  inputs.log(
    `fleet membership: base runtime ${from}: clusters ${loaded.runtime.clusters.map((c) => c.name).join(', ')}`,
  );
  return { baseRuntime: { runtime: loaded.runtime, from } };
}
