// Small factories for realistic ChangeSets: the podinfo module of the Timoni docs rolled out
// to a staging cluster and two production clusters; the ChangeSets of the golden reports
// (written to test/report/__output__/, not committed, for a human to look at); a failed
// object among others and an instance removed from the bundle.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ChangeSet,
  CHANGESET_FORMAT,
  type ChangeSetMode,
  type ClusterChanges,
  type ClusterError,
  type ClusterStatus,
  type InstanceChanges,
  type ModuleInfo,
  type ObjectAction,
  type ObjectChange,
} from '../../src/changeset.js';
import { failedObjects } from '../../src/fleet/plan.js';

export const PODINFO_MODULE: ModuleInfo = {
  url: 'oci://ghcr.io/stefanprodan/modules/podinfo',
  version: '6.5.4',
  digest: 'sha256:54d38da7d42b4ce5f3a0bd2aa1a9b0e1c3e8d4f9a6b7c8d9e0f1a2b3c4d5e6f7',
};

export const REDIS_MODULE: ModuleInfo = {
  url: 'oci://ghcr.io/stefanprodan/modules/redis',
  version: '7.2.3',
  digest: 'sha256:0f9e8d7c6b5a49382716054f3e2d1c0b9a8f7e6d5c4b3a291807f6e5d4c3b2a1',
};

export function objectChange(overrides: Partial<ObjectChange> & Pick<ObjectChange, 'kind' | 'name'>): ObjectChange {
  return { apiVersion: 'v1', namespace: 'apps', action: 'unchanged', diff: '', ...overrides };
}

/** A `configured` Deployment whose replicas and image tag change. */
export function deploymentConfigured(name: string, replicas: [number, number], tag: [string, string]): ObjectChange {
  return objectChange({
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    name,
    action: 'configured',
    diff: [
      '--- live',
      '+++ desired',
      '@@ -8,7 +8,7 @@',
      ' spec:',
      `-  replicas: ${replicas[0]}`,
      `+  replicas: ${replicas[1]}`,
      '   template:',
      '     spec:',
      '       containers:',
      `-      - image: ghcr.io/stefanprodan/podinfo:${tag[0]}`,
      `+      - image: ghcr.io/stefanprodan/podinfo:${tag[1]}`,
      '',
    ].join('\n'),
  });
}

/** A `created` object: the diff shows the whole object. */
/** Kinds without a namespace, among those the fixtures use. */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);

export function created(kind: string, name: string, body: string[], apiVersion = 'v1'): ObjectChange {
  const namespace = CLUSTER_SCOPED.has(kind) ? '' : 'apps';
  const metadata = namespace ? [`+  name: ${name}`, `+  namespace: ${namespace}`] : [`+  name: ${name}`];
  const lines = [
    '--- live',
    '+++ desired',
    `@@ -0,0 +1,${body.length + 3 + metadata.length} @@`,
    `+apiVersion: ${apiVersion}`,
    `+kind: ${kind}`,
    '+metadata:',
    ...metadata,
  ];
  return objectChange({
    kind,
    apiVersion,
    namespace,
    name,
    action: 'created',
    diff: [...lines, ...body.map((line) => `+${line}`), ''].join('\n'),
  });
}

export function unchanged(kind: string, name: string, apiVersion = 'v1'): ObjectChange {
  return objectChange({ kind, apiVersion, name, action: 'unchanged' });
}

export function withAction(change: ObjectChange, action: ObjectAction): ObjectChange {
  return { ...change, action };
}

export function instance(
  name: string,
  changes: ObjectChange[],
  module: ModuleInfo = PODINFO_MODULE,
  namespace = 'apps',
): InstanceChanges {
  return { name, namespace, module, changes };
}

export interface ClusterOptions {
  status?: ClusterStatus;
  error?: ClusterError | null;
  durationMs?: number;
  kubeContext?: string;
}

export function cluster(
  name: string,
  group: string,
  instances: InstanceChanges[],
  options: ClusterOptions = {},
): ClusterChanges {
  const changed = instances.some((item) =>
    item.changes.some((change) => change.action !== 'unchanged' && change.action !== 'skipped'),
  );
  return {
    name,
    group,
    kubeContext: options.kubeContext ?? `kind-${name}`,
    status: options.status ?? (changed ? 'changed' : 'unchanged'),
    error: options.error ?? null,
    instances,
    ...(options.durationMs === undefined ? {} : { durationMs: options.durationMs }),
  };
}

export function changeSet(clusters: ClusterChanges[], mode: ChangeSetMode = 'diff', bundle = 'apps'): ChangeSet {
  return { format: CHANGESET_FORMAT, bundle, mode, clusters };
}

/** The podinfo instance of a cluster: a Deployment update, a new HPA, a Service unchanged. */
export function podinfoInstance(
  replicas: [number, number],
  tag: [string, string] = ['6.5.3', '6.5.4'],
): InstanceChanges {
  return instance('podinfo', [
    unchanged('ServiceAccount', 'podinfo'),
    unchanged('Service', 'podinfo'),
    deploymentConfigured('podinfo', replicas, tag),
    created('HorizontalPodAutoscaler', 'podinfo', ['spec:', '  minReplicas: 2', '  maxReplicas: 4'], 'autoscaling/v2'),
  ]);
}

/** A staging cluster and two production clusters; the two production clusters change identically. */
export function realisticFleet(mode: ChangeSetMode = 'diff'): ChangeSet {
  return changeSet(
    [
      cluster('staging-eu-1', 'staging', [
        podinfoInstance([1, 2]),
        instance('redis', [unchanged('StatefulSet', 'redis', 'apps/v1')], REDIS_MODULE),
      ]),
      cluster('production-eu-1', 'production', [
        podinfoInstance([3, 4]),
        instance('redis', [unchanged('StatefulSet', 'redis', 'apps/v1')], REDIS_MODULE),
      ]),
      cluster('production-us-1', 'production', [
        podinfoInstance([3, 4]),
        instance('redis', [unchanged('StatefulSet', 'redis', 'apps/v1')], REDIS_MODULE),
      ]),
    ],
    mode,
  );
}

/** A deterministic diff of about `lines` lines of ConfigMap data (`seed` varies the text). */
export function hugeDiff(lines: number, seed: string): string {
  const body = ['--- live', '+++ desired', `@@ -1,${lines} +1,${lines} @@`];
  for (let index = 0; index < lines; index += 1) {
    const sign = index % 3 === 0 ? '-' : index % 3 === 1 ? '+' : ' ';
    body.push(`${sign}  key-${seed}-${index}: value ${seed} ${index} ${'x'.repeat(40 + (index % 17))}`);
  }
  return `${body.join('\n')}\n`;
}

/** A ConfigMap `configured` with a huge diff. */
export function hugeConfigMap(name: string, lines: number, seed = name): ObjectChange {
  return objectChange({ kind: 'ConfigMap', name, action: 'configured', diff: hugeDiff(lines, seed) });
}

// ---------------------------------------------------------------------------------------
// A failed object among others, and an instance removed from the bundle.

/** The API server's answer for the Service of podinfoWithFailure. */
export const serviceError =
  'cluster staging-eu-1: Service/apps/podinfo: PATCH /api/v1/namespaces/apps/services/podinfo failed: Service "podinfo" is invalid: spec.ports[1].name: Duplicate value: "http" (Invalid)';

export function failedService(): ObjectChange {
  return objectChange({
    kind: 'Service',
    name: 'podinfo',
    action: 'failed',
    error: serviceError,
    diff: '--- live\n+++ desired\n@@ -9,3 +9,3 @@\n   ports:\n-    - port: 8080\n+    - port: 9898\n',
  });
}

/** The shape: a Service changed out of band fails, the Deployment still configured, a ServiceAccount gone from the build. */
export function podinfoWithFailure(): InstanceChanges {
  return instance('podinfo', [
    objectChange({
      kind: 'ServiceAccount',
      name: 'podinfo',
      action: 'deleted',
      diff: '--- live\n+++ desired\n@@ -1,4 +0,0 @@\n-apiVersion: v1\n-kind: ServiceAccount\n',
    }),
    failedService(),
    deploymentConfigured('podinfo', [1, 2], ['6.5.3', '6.5.4']),
  ]);
}

export function removedRedis(action: 'deleted' | 'skipped' = 'deleted'): InstanceChanges {
  return {
    ...instance(
      'redis',
      [
        objectChange({
          kind: 'ConfigMap',
          name: 'redis',
          action: 'deleted',
          diff: '--- live\n+++ desired\n@@ -1,3 +0,0 @@\n-apiVersion: v1\n-kind: ConfigMap\n',
        }),
        objectChange({
          kind: 'Service',
          name: 'redis',
          action,
          diff: action === 'deleted' ? '--- live\n+++ desired\n@@ -1,3 +0,0 @@\n-apiVersion: v1\n-kind: Service\n' : '',
        }),
        objectChange({
          kind: 'StatefulSet',
          apiVersion: 'apps/v1',
          name: 'redis',
          action: 'deleted',
          diff: '--- live\n+++ desired\n@@ -1,3 +0,0 @@\n-apiVersion: apps/v1\n-kind: StatefulSet\n',
        }),
      ],
      REDIS_MODULE,
    ),
    removed: true,
  };
}

export function planWithFailure(): ChangeSet {
  const instances = [podinfoWithFailure()];
  return changeSet([
    cluster('staging-eu-1', 'staging', instances, {
      status: 'failed',
      error: failedObjects('staging-eu-1', instances),
    }),
    cluster('production-eu-1', 'production', [podinfoInstance([3, 4]), removedRedis()]),
  ]);
}

/** A values error of instance redis, as a build reports it. */
export const valuesError =
  'instance redis (module oci://ghcr.io/stefanprodan/modules/redis): build failed:\nvalues.replicas: conflicting values "many" and int (mismatched types string and int):\n    ./templates/config.cue:26:17';

/** Instance redis that did not build: no changes, its error (InstanceChanges.error). */
export function unbuiltRedis(message = valuesError): InstanceChanges {
  return { ...instance('redis', [], { ...REDIS_MODULE, digest: '' }), error: { step: 'build', message } };
}

/**
 * Issue 23's shape: instance redis (first in bundle order) builds on staging and has a values
 * error on both production clusters; podinfo builds everywhere. A diff, or (`apply`) the
 * rollout that applied staging and nothing on the first production cluster.
 */
export function brokenInstanceFleet(mode: ChangeSetMode = 'diff'): ChangeSet {
  const buildError = { step: 'build', message: valuesError, instance: 'redis' };
  if (mode === 'apply') {
    return changeSet(
      [
        cluster(
          'staging-eu-1',
          'staging',
          [instance('redis', [created('ConfigMap', 'redis', ['data: {}'])], REDIS_MODULE), podinfoInstance([1, 2])],
          { status: 'applied' },
        ),
        cluster('production-eu-1', 'production', [unbuiltRedis()], {
          status: 'failed',
          error: {
            step: 'build',
            message:
              'nothing was applied to cluster production-eu-1: instance redis did not build (an apply is all or nothing per cluster)',
            instance: 'redis',
          },
        }),
        cluster('production-us-1', 'production', [], { status: 'skipped' }),
      ],
      'apply',
    );
  }
  return changeSet([
    cluster('staging-eu-1', 'staging', [
      instance('redis', [created('ConfigMap', 'redis', ['data: {}'])], REDIS_MODULE),
      podinfoInstance([1, 2]),
    ]),
    cluster('production-eu-1', 'production', [unbuiltRedis(), podinfoInstance([3, 4])], {
      status: 'failed',
      error: buildError,
    }),
    cluster('production-us-1', 'production', [unbuiltRedis(), podinfoInstance([3, 4])], {
      status: 'failed',
      error: buildError,
    }),
  ]);
}

// ---------------------------------------------------------------------------------------
// The golden reports: a realistic 3-cluster PR comment, its rollout and the job summary.

const outputDirectory = join(dirname(fileURLToPath(import.meta.url)), '__output__');

export function writeOutput(name: string, text: string): void {
  mkdirSync(outputDirectory, { recursive: true });
  writeFileSync(join(outputDirectory, name), text);
}

/** The context of the golden reports. */
export const goldenContext = {
  commitSha: '3f2a9c1e0b7d4a5f8e6c2b1a0d9f8e7c6b5a4f3e',
  repository: 'acme/fleet-config',
  pullRequest: 128,
  runUrl: 'https://github.com/acme/fleet-config/actions/runs/9876543210',
  secrets: ['redis-password-4b1d'],
};

export function pullRequestFleet(): ChangeSet {
  const redisSecret = objectChange({
    kind: 'Secret',
    name: 'redis',
    action: 'configured',
    diff: '--- live\n+++ desired\n@@ -3,3 +3,3 @@\n data:\n-  password: *** (before)\n+  password: *** (after)\n',
  });
  const redis = (changes = [unchanged('StatefulSet', 'redis', 'apps/v1'), redisSecret]) =>
    instance('redis', changes, REDIS_MODULE);
  return changeSet([
    cluster('staging-eu-1', 'staging', [
      podinfoInstance([1, 2]),
      redis(),
      instance('ingress', [
        created('Namespace', 'ingress', []),
        objectChange({
          kind: 'Ingress',
          apiVersion: 'networking.k8s.io/v1',
          name: 'podinfo',
          action: 'recreated',
          diff: '--- live\n+++ desired\n@@ -5,1 +5,1 @@\n-  ingressClassName: nginx\n+  ingressClassName: `traefik` | <edge>\n',
        }),
      ]),
    ]),
    cluster('production-eu-1', 'production', [podinfoInstance([3, 4]), redis()]),
    cluster(
      'production-us-1',
      'production',
      [
        instance('podinfo', [deploymentConfigured('podinfo', [3, 4], ['6.5.3', '6.5.4'])]),
        redis([unchanged('StatefulSet', 'redis', 'apps/v1')]),
      ],
      {
        status: 'failed',
        error: {
          step: 'diff',
          message:
            'dry-run failed: admission webhook "validate.kyverno.svc" denied the request:\nresource Deployment/apps/podinfo was blocked',
        },
      },
    ),
  ]);
}

export function rolloutFleet(): ChangeSet {
  const plan = pullRequestFleet();
  const [staging, productionEu, productionUs] = plan.clusters;
  return changeSet(
    [
      { ...staging!, status: 'applied', durationMs: 41_200 },
      {
        ...productionEu!,
        status: 'failed',
        durationMs: 300_400,
        error: {
          step: 'wait',
          message: 'timeout waiting for Deployment/apps/podinfo: 2 of 4 replicas ready',
          instance: 'podinfo',
          object: 'Deployment/apps/podinfo',
        },
      },
      {
        ...productionUs!,
        status: 'skipped',
        error: null,
        instances: productionUs!.instances.map((item) => ({
          ...item,
          changes: item.changes.map((change) => withAction(change, 'skipped')),
        })),
      },
    ],
    'apply',
  );
}
