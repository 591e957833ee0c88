// vet and build read runtime value queries from each cluster through the kubeconfig, as
// Timoni's `bundle vet` and `bundle build --runtime-cluster X` do; values read from a
// Secret never reach the output. Against the local fleet: a ConfigMap and a Secret with
// different values on two clusters.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { runCliCaptured } from './run-cli.js';

const cwd = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const namespace = `cli-queries-${randomBytes(3).toString('hex')}`;
const colors = ['blue', 'green'];
const tokens = ['first-cluster-token-5f1e', 'second-cluster-token-9c2b'];
let dir: string;

function runtime(queries: string): string {
  return `runtime: {
	apiVersion: "v1alpha1"
	name:       "queries"
	clusters: {
		"one": {group: "staging", kubeContext: "fleet-1"}
		"two": {group: "production", kubeContext: "fleet-2"}
	}
	values: [${queries}]
}
`;
}

beforeAll(async () => {
  dir = scratchDir('cli-queries');
  for (const [index, client] of [clusterClient(0), clusterClient(1)].entries()) {
    await client.apply({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    await client.apply({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace },
      data: { color: colors[index] as string },
    });
    await client.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace },
      stringData: { token: tokens[index] as string },
    });
  }
  const found = `{query: "k8s:v1:ConfigMap:${namespace}:settings", for: {COLOR: "obj.data.color"}}, {query: "k8s:v1:Secret:${namespace}:creds", for: {TOKEN: "obj.data.token"}}`;
  writeFileSync(join(dir, 'runtime.cue'), runtime(found));
  writeFileSync(
    join(dir, 'runtime-missing.cue'),
    runtime(`{query: "k8s:v1:ConfigMap:${namespace}:absent", for: {COLOR: "obj.data.color"}}`),
  );
});

afterAll(async () => {
  for (const client of [clusterClient(0), clusterClient(1)])
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace }).catch(() => undefined);
});

const cli = (
  command: string,
  runtimeFile: string,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = { KUBECONFIG: testFleet().kubeconfigPath },
) => runCliCaptured([command, '-f', 'queries-bundle.cue', '-r', join(dir, runtimeFile), ...extra], { cwd, env });

describe('runtime value queries in vet and build', () => {
  it('vet reads each cluster and prints its values, the Secret value redacted', async () => {
    const result = await cli('vet', 'runtime.cue', ['--print-value']);
    expect(result.code, result.stderr).toBe(0);
    const [one, two] = result.stdout.split('"two": bundle:');
    expect(one).toContain('message: "blue"');
    expect(two).toContain('message: "green"');
    expect(result.stdout).toMatch(/token: +"\*\*\*"/);
    for (const token of tokens) expect(result.stdout).not.toContain(token);
  });

  it('build --runtime-cluster reads that cluster only; the Secret value is redacted in the objects', async () => {
    const result = await cli('build', 'runtime.cue', ['--runtime-cluster', 'two']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.startsWith('---\n# Cluster: two\n# Instance: web\n---\n')).toBe(true);
    expect(result.stdout).toContain('  message: green\n');
    expect(result.stdout).toContain("stringData:\n  token: '***'\n");
    for (const token of tokens) expect(result.stdout).not.toContain(token);
  });

  it('a query of an object that is not there names the query and the cluster', async () => {
    const result = await cli('vet', 'runtime-missing.cue');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`k8s:v1:ConfigMap:${namespace}:absent`);
    expect(result.stderr).toContain('not found in cluster one');
  });

  it('without a kubeconfig the command says where it looked', async () => {
    const result = await cli('build', 'runtime.cue', [], { KUBECONFIG: join(dir, 'no-such-kubeconfig') });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /runtime "queries" has value queries \(k8s:v1:ConfigMap:[^)]*\), which are read from the clusters: no kubeconfig found/,
    );
    expect(result.stderr).toContain('pass --kubeconfig or set KUBECONFIG');
  });
});
