// The flags every bundle command shares (as `timoni bundle` names them), and reading the
// bundle, runtime and module files they point at.
import type { FlagSpec, ParsedArguments } from './arguments.js';
import { UsageError } from './arguments.js';
import { loadRuntime, readCueModuleFiles, readSourceFiles, type ClusterSelector, type Runtime, type SourceFile } from '../bundle/index.js';
import type { CueEngine } from '../cue/index.js';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseVariableNames, runtimeEnvironment } from '../bundle/runtime-environment.js';
import { FileBoundary } from '../file-boundary.js';

export const bundleFlags: FlagSpec[] = [
  { name: 'file', short: 'f', kind: 'list', description: 'Bundle file (.cue, .json, .yaml); repeat or separate with commas' },
  { name: 'runtime', short: 'r', kind: 'list', description: 'Runtime file; may be one of the bundle files' },
  { name: 'runtime-group', kind: 'string', default: '*', description: 'Only the clusters of this group' },
  { name: 'runtime-cluster', kind: 'string', default: '*', description: 'Only the cluster of this name' },
  { name: 'runtime-from-env', kind: 'boolean', description: 'Give environment variables to @timoni(runtime:...) attributes (never CI job credentials)' },
  { name: 'runtime-env', kind: 'list', description: 'Give only these environment variables to runtime attributes; repeat or separate with commas' },
  { name: 'allow-path', kind: 'list', description: 'Another folder that bundle, runtime and module files may come from (default: the current directory and the folders of the -f/-r files)' },
  { name: 'workdir', kind: 'string', default: '', description: 'CUE module root for imports in bundle files (default: current directory)' },
  { name: 'kubeconfig', kind: 'string', default: '', description: 'Path to the kubeconfig file' },
  { name: 'kube-context', kind: 'string', default: '', description: 'Kube context of the default cluster (runtime without clusters)' },
  { name: 'output', short: 'o', kind: 'string', default: 'text', choices: ['text', 'json'], description: 'Output format' },
  { name: 'cue-memory-limit', kind: 'string', default: '2048', description: "Ceiling on the CUE engine's memory in MiB (64-4096)" },
];

/** `--cue-memory-limit` in MiB, checked. */
export function cueMemoryLimit(args: ParsedArguments): number {
  const text = args.strings.get('cue-memory-limit') ?? '2048';
  const value = Number(text);
  if (!Number.isInteger(value) || value < 64 || value > 4096) throw new UsageError(`--cue-memory-limit must be a whole number of MiB from 64 to 4096, not "${text}"`);
  return value;
}

export interface BundleInputs {
  bundleFiles: SourceFile[];
  runtime: Runtime;
  moduleFiles: Record<string, string>;
  selector: ClusterSelector;
  environment?: Record<string, string | undefined>;
  /** Where bundle, runtime, cue.mod and local module files may come from (after symlinks). */
  boundary: FileBoundary;
  output: 'text' | 'json';
}

/** The root of the git work tree holding `cwd` (a bundle may use modules anywhere in its repository), else `cwd`. */
function repositoryRoot(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return resolve(cwd);
  }
}

export function readBundleInputs(engine: CueEngine, args: ParsedArguments, cwd: string, env: NodeJS.ProcessEnv): BundleInputs {
  const files = args.lists.get('file') ?? [];
  if (files.length === 0) throw new UsageError('no bundle given: pass one or more files with -f');
  const workdir = resolve(cwd, args.strings.get('workdir') || '.');
  const named = [...files, ...(args.lists.get('runtime') ?? [])].map((file) => dirname(resolve(cwd, file)));
  const boundary = new FileBoundary([repositoryRoot(cwd), workdir, ...named, ...(args.lists.get('allow-path') ?? []).map((path) => resolve(cwd, path))]);
  const moduleFiles = readCueModuleFiles(workdir, boundary);
  const bundleFiles = readSourceFiles(files, cwd, boundary);
  const runtimeFiles = readSourceFiles(args.lists.get('runtime') ?? [], cwd, boundary);
  let allowed: string[];
  try {
    allowed = parseVariableNames((args.lists.get('runtime-env') ?? []).join(','), '--runtime-env');
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const runtime = loadRuntime(engine, runtimeFiles, moduleFiles, args.strings.get('kube-context') ?? '');
  return {
    bundleFiles,
    runtime,
    moduleFiles,
    selector: { cluster: args.strings.get('runtime-cluster'), group: args.strings.get('runtime-group') },
    environment: runtimeEnvironment(env, { all: args.booleans.get('runtime-from-env') ?? false, allowed }),
    boundary,
    output: (args.strings.get('output') ?? 'text') as 'text' | 'json',
  };
}
