// The fleet's env file, DIR/env: what a shell, a test or another tool needs to reach the
// fleet. Format, one entry a line:
//
//   # comment lines and blank lines are ignored
//   KEY=VALUE
//
// KEY matches [A-Z_][A-Z0-9_]*; VALUE is everything after the first `=` up to the end of the
// line, taken literally: no quotes, no escapes, no variable expansion, never a newline. The
// file can be read by `readEnvFile`, loaded by `set -a; . DIR/env; set +a` when values hold no
// shell-special characters (the fleet writes only paths, names and URLs), and appended to
// $GITHUB_ENV as is.
//
// Keys written by the fleet (N = 1, 2, ... in cluster order):
//   FLEET_DIR              absolute path of DIR
//   KUBECONFIG             DIR/kubeconfig, one context per cluster
//   FLEET_KUBE_VERSION     Kubernetes version every cluster serves, e.g. v1.36.3
//   FLEET_KWOK             true when workloads run on fake nodes (kwok), false when tests mark them ready
//   FLEET_CLUSTERS         cluster names, comma-separated, e.g. fleet-1,fleet-2,fleet-3
//   FLEET_CONTEXTS         kubeconfig context names, same order
//   FLEET_CLUSTER_N_NAME, FLEET_CLUSTER_N_CONTEXT, FLEET_CLUSTER_N_SERVER (https://127.0.0.1:PORT)
// and, when the fleet runs its registry (fleet-registry.ts; `npm run fleet -- up` does):
//   REGISTRY_URL           http://127.0.0.1:PORT
//   REGISTRY_HOST          127.0.0.1:PORT
//   REGISTRY_MODULE        oci://127.0.0.1:PORT/modules/webapp, the example module
//   REGISTRY_MODULE_VERSION the version examples/bundle.cue names, e.g. 1.4.0
//   DEMO_REGISTRY          the registry host again, under the name examples/bundle.cue reads
// Other parts of the test environment (the OCI registry, the GitHub stand-in) add their own
// keys with `setEnvEntries`, prefixed with their name (REGISTRY_..., GITHUB_...).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export type EnvEntries = Record<string, string>;

const keyPattern = /^[A-Z_][A-Z0-9_]*$/;

function checkEntry(key: string, value: string): void {
  if (!keyPattern.test(key)) throw new Error(`env file key ${JSON.stringify(key)} is not of the form [A-Z_][A-Z0-9_]*`);
  if (/[\r\n]/.test(value)) throw new Error(`env file value of ${key} contains a line break`);
}

/** Parses env file text; later entries win. */
export function parseEnvFile(text: string, source = 'env file'): EnvEntries {
  const entries: EnvEntries = {};
  text.split('\n').forEach((rawLine, index) => {
    const line = rawLine.replace(/\r$/, '');
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const equals = line.indexOf('=');
    if (equals <= 0) throw new Error(`${source}, line ${index + 1}: expected KEY=VALUE, got ${JSON.stringify(line)}`);
    const key = line.slice(0, equals);
    if (!keyPattern.test(key))
      throw new Error(`${source}, line ${index + 1}: key ${JSON.stringify(key)} is not of the form [A-Z_][A-Z0-9_]*`);
    entries[key] = line.slice(equals + 1);
  });
  return entries;
}

export function formatEnvFile(entries: EnvEntries, header?: string): string {
  const lines = header ? header.split('\n').map((line) => `# ${line}`) : [];
  for (const [key, value] of Object.entries(entries)) {
    checkEntry(key, value);
    lines.push(`${key}=${value}`);
  }
  return `${lines.join('\n')}\n`;
}

export function readEnvFile(path: string): EnvEntries {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the fleet env file ${path}: ${(error as Error).message}`);
  }
  return parseEnvFile(text, path);
}

/**
 * Sets entries in the env file at `path`, keeping the other entries and the comment header;
 * creates the file when missing. For other parts of the test environment to add their keys.
 */
export function setEnvEntries(path: string, entries: EnvEntries): void {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const header = text
    .split('\n')
    .filter((line) => line.startsWith('# '))
    .map((line) => line.slice(2))
    .join('\n');
  const merged = { ...parseEnvFile(text, path), ...entries };
  writeFileSync(path, formatEnvFile(merged, header || undefined));
}
