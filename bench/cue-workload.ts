// The module build measured by bench/cue.ts, the same for the engine and the native CLI.
import type { LoadOptions } from '../src/cue/index.js';

export const K8S_MODULE_LOAD: Omit<LoadOptions, 'files'> = {
  package: 'main',
  dataFiles: true,
  tags: ['name=podinfo', 'namespace=apps'],
  tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
};

/** The same export with the native cue CLI, run in the fixture folder. */
export const K8S_MODULE_CLI_ARGS = [
  'export',
  '.',
  '-t',
  'name=podinfo',
  '-t',
  'namespace=apps',
  '-t',
  'mv=1.0.0',
  '-t',
  'kv=1.36.3',
  '-e',
  'timoni.apply.app',
  '--out',
  'json',
];
