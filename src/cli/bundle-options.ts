// The flags every bundle command shares (as `timoni bundle` names them), and reading the
// bundle, runtime and module files they point at.
import type { FlagSpec, ParsedArguments } from './arguments.js';
import { UsageError } from './arguments.js';
import { loadRuntime, readCueModuleFiles, readSourceFiles, type ClusterSelector, type Runtime, type SourceFile } from '../bundle/index.js';
import type { CueEngine } from '../cue/index.js';
import { resolve } from 'node:path';

export const bundleFlags: FlagSpec[] = [
  { name: 'file', short: 'f', kind: 'list', description: 'Bundle file (.cue, .json, .yaml); repeat or separate with commas' },
  { name: 'runtime', short: 'r', kind: 'list', description: 'Runtime file; may be one of the bundle files' },
  { name: 'runtime-group', kind: 'string', default: '*', description: 'Only the clusters of this group' },
  { name: 'runtime-cluster', kind: 'string', default: '*', description: 'Only the cluster of this name' },
  { name: 'runtime-from-env', kind: 'boolean', description: 'Give environment variables to @timoni(runtime:...) attributes' },
  { name: 'workdir', kind: 'string', default: '', description: 'CUE module root for imports in bundle files (default: current directory)' },
  { name: 'kubeconfig', kind: 'string', default: '', description: 'Path to the kubeconfig file' },
  { name: 'kube-context', kind: 'string', default: '', description: 'Kube context of the default cluster (runtime without clusters)' },
  { name: 'output', short: 'o', kind: 'string', default: 'text', choices: ['text', 'json'], description: 'Output format' },
];

export interface BundleInputs {
  bundleFiles: SourceFile[];
  runtime: Runtime;
  moduleFiles: Record<string, string>;
  selector: ClusterSelector;
  environment?: Record<string, string | undefined>;
  output: 'text' | 'json';
}

export function readBundleInputs(engine: CueEngine, args: ParsedArguments, cwd: string, env: NodeJS.ProcessEnv): BundleInputs {
  const files = args.lists.get('file') ?? [];
  if (files.length === 0) throw new UsageError('no bundle given: pass one or more files with -f');
  const workdir = resolve(cwd, args.strings.get('workdir') || '.');
  const moduleFiles = readCueModuleFiles(workdir);
  const bundleFiles = readSourceFiles(files, cwd);
  const runtimeFiles = readSourceFiles(args.lists.get('runtime') ?? [], cwd);
  const runtime = loadRuntime(engine, runtimeFiles, moduleFiles, args.strings.get('kube-context') ?? '');
  return {
    bundleFiles,
    runtime,
    moduleFiles,
    selector: { cluster: args.strings.get('runtime-cluster'), group: args.strings.get('runtime-group') },
    environment: args.booleans.get('runtime-from-env') ? { ...env } : undefined,
    output: (args.strings.get('output') ?? 'text') as 'text' | 'json',
  };
}
