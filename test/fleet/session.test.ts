// One cluster's session and builds: the Kubernetes version modules are built with, as
// Timoni passes it (without the `v` and any build suffix), and a built instance in the
// shape the Kubernetes engine applies (the module's repository and annotations only when
// known). Connecting and building against real clusters: plan.test.ts and rollout.test.ts.
import { describe, expect, it } from 'vitest';
import { instanceInput, moduleInfo, moduleKubeVersion, type ClusterInstanceBuild } from '../../src/fleet/session.js';

describe('moduleKubeVersion', () => {
  it('keeps major.minor.patch of the server version', () => {
    expect(moduleKubeVersion('v1.36.3')).toBe('1.36.3');
    expect(moduleKubeVersion('v1.36.3+k3s1')).toBe('1.36.3');
    expect(moduleKubeVersion('1.30.0-eks-abc')).toBe('1.30.0');
  });

  it('drops only the v of a version it cannot read', () => {
    expect(moduleKubeVersion('v1.36')).toBe('1.36');
  });
});

describe('instanceInput', () => {
  const build = (module: Partial<ClusterInstanceBuild['module']>): ClusterInstanceBuild => ({
    name: 'web',
    namespace: 'apps',
    module: { url: 'oci://registry.example/modules/web', version: '1.2.3', digest: 'sha256:abc', name: 'example.com/web', files: {}, root: '/modules/web', ...module },
    built: { sets: [], images: ['nginx:1.27'], valuesSource: 'values: replicas: 2', values: '{\n\treplicas: 2\n}' },
  });

  it('names the bundle, the instance and its module', () => {
    const input = instanceInput('apps', build({}));
    // The instance record stores the evaluated values (as Timoni does), not the merged values.cue.
    expect(input).toMatchObject({ bundle: 'apps', name: 'web', namespace: 'apps', valuesSource: '{\n\treplicas: 2\n}', images: ['nginx:1.27'] });
    expect(input.module).toEqual({ url: 'oci://registry.example/modules/web', version: '1.2.3', digest: 'sha256:abc', name: 'example.com/web' });
    expect(moduleInfo(build({}))).toEqual({ url: 'oci://registry.example/modules/web', version: '1.2.3', digest: 'sha256:abc' });
  });

  it('carries the repository and annotations when the module has them', () => {
    const input = instanceInput('apps', build({ repository: 'registry.example/modules/web', annotations: { 'org.opencontainers.image.source': 'https://example.com' } }));
    expect(input.module.repository).toBe('registry.example/modules/web');
    expect(input.module.annotations).toEqual({ 'org.opencontainers.image.source': 'https://example.com' });
  });
});
