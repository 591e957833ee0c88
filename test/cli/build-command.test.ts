// `timoni-fleet build` with local modules: objects per cluster and instance, in apply
// order, as YAML with Timoni's comments or as JSON.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

interface BuildDocument {
  clusters: Array<{ name: string; instances: Array<{ name: string; module: { version: string; digest: string; name: string }; sets: Array<{ name: string; objects: Array<{ kind: string; metadata: { name: string }; spec?: { replicas?: number }; data?: Record<string, string> }> }> }> }>;
}

describe('build', () => {
  it('builds each instance for each cluster with its own values', async () => {
    const result = await runCliCaptured(['build', '-f', 'bundle.cue', '-r', 'runtime.cue', '-o', 'json'], { cwd: fixtures });
    expect(result.stderr).toBe('');
    const document = JSON.parse(result.stdout) as BuildDocument;
    expect(document.clusters.map((c) => c.name)).toEqual(['staging-1', 'production-1']);
    const [staging, production] = document.clusters;
    expect(staging?.instances.map((i) => i.name)).toEqual(['frontend', 'backend']);
    expect(staging?.instances[0]?.module).toEqual({ url: 'file://../../../examples/modules/webapp', version: '0.0.0-devel', digest: 'unknown', name: 'example.com/webapp' });
    const deployment = (cluster: typeof staging) => cluster?.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'Deployment');
    expect(deployment(staging)?.spec?.replicas).toBe(1);
    expect(deployment(production)?.spec?.replicas).toBe(3);
    const configMap = production?.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'ConfigMap');
    expect(configMap?.data?.message).toBe('served by production-1');
    expect(staging?.instances[1]?.sets.map((s) => [s.name, s.objects.length])).toEqual([['app', 4], ['test', 0]]);
  });

  it('prints YAML documents in apply order with cluster and instance comments', async () => {
    const result = await runCliCaptured(['build', '-f', 'bundle.cue', '-r', 'runtime.cue', '--runtime-cluster', 'staging-1'], { cwd: fixtures });
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('---\n# Cluster: staging-1\n# Instance: frontend\n---\n')).toBe(true);
    expect(result.stdout).toContain('\n---\n# Cluster: staging-1\n# Instance: backend\n---\n');
    const kinds = parseAllDocuments(result.stdout.split('# Instance: backend')[0] ?? '')
      .map((d) => d.toJS() as { kind?: string } | null)
      .filter((d): d is { kind: string } => Boolean(d?.kind))
      .map((d) => d.kind);
    expect(kinds).toEqual(['ServiceAccount', 'ConfigMap', 'Service', 'Deployment', 'Job']);
  });

  it('names the instance, the module and the field when values break the module', async () => {
    const result = await runCliCaptured(['build', '-f', 'bundle-bad-values.cue'], { cwd: fixtures });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('instance frontend (module file://../../../examples/modules/webapp)');
    expect(result.stderr).toContain('replicas');
  });
});
