// The order in which objects are applied, as Timoni does it (fluxcd ssa sort.go and
// ApplyAllStaged, with Timoni's extra stage for RBAC Roles): pure functions.
import { groupOf, type KubeObject } from '../object.js';

/** Kinds applied first, in this order (fluxcd ssa `ReconcileOrder.First`). */
const firstKinds = [
  'CustomResourceDefinition',
  'Namespace',
  'ClusterRole',
  'ClusterClass',
  'RuntimeClass',
  'PriorityClass',
  'StorageClass',
  'VolumeSnapshotClass',
  'IngressClass',
  'GatewayClass',
  'ClusterRoleBinding',
  'ResourceQuota',
  'ServiceAccount',
  'Role',
  'RoleBinding',
  'ConfigMap',
  'Secret',
  'Service',
  'LimitRange',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];

/** Kinds applied last, in this order (fluxcd ssa `ReconcileOrder.Last`). */
const lastKinds = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

const kindIndex = new Map<string, number>([
  ...firstKinds.map((kind, i): [string, number] => [kind, i - firstKinds.length]),
  ...lastKinds.map((kind, i): [string, number] => [kind, i + 1]),
]);

/** Any kind not listed sorts between the first and the last kinds. */
function indexOfKind(kind: string): number {
  return kindIndex.get(kind) ?? 0;
}

/** The minimal identity the order looks at. */
export interface SortKey {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

function keyOf(object: KubeObject | SortKey): SortKey {
  if ('metadata' in object) {
    const o = object as KubeObject;
    return { apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace ?? '', name: o.metadata.name };
  }
  return object as SortKey;
}

const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Compares two objects by kind order, then group, kind, namespace and name. */
export function compareApplyOrder(a: KubeObject | SortKey, b: KubeObject | SortKey): number {
  const x = keyOf(a);
  const y = keyOf(b);
  const gx = groupOf(x.apiVersion);
  const gy = groupOf(y.apiVersion);
  if (gx !== gy || x.kind !== y.kind) {
    const ix = indexOfKind(x.kind);
    const iy = indexOfKind(y.kind);
    if (ix !== iy) return ix - iy;
    if (gx !== gy) return compareStrings(gx, gy);
    return compareStrings(x.kind, y.kind);
  }
  const nx = x.namespace ?? '';
  const ny = y.namespace ?? '';
  if (nx !== ny) return compareStrings(nx, ny);
  return compareStrings(x.name, y.name);
}

/** A sorted copy of the objects, in apply order. */
export function sortForApply<T extends KubeObject | SortKey>(objects: readonly T[]): T[] {
  return [...objects].sort(compareApplyOrder);
}

/** A sorted copy in the order objects are deleted (the reverse of apply order). */
export function sortForDelete<T extends KubeObject | SortKey>(objects: readonly T[]): T[] {
  return sortForApply(objects).reverse();
}

export type ApplyStageName = 'definitions' | 'classes' | 'roles' | 'resources';

export interface ApplyStage<T> {
  name: ApplyStageName;
  /** True when the next stage must wait for these objects to be ready (CRDs established...). */
  waitAfter: boolean;
  objects: T[];
}

function isClusterDefinition(o: SortKey): boolean {
  const kind = o.kind.toLowerCase();
  const group = groupOf(o.apiVersion);
  return (
    (kind === 'customresourcedefinition' && o.apiVersion.startsWith('apiextensions.k8s.io/')) ||
    (kind === 'namespace' && o.apiVersion === 'v1') ||
    (kind === 'clusterrole' && group === 'rbac.authorization.k8s.io')
  );
}

function isClassDefinition(o: SortKey): boolean {
  return o.kind.endsWith('Class');
}

function isRole(o: SortKey): boolean {
  return o.kind === 'Role' && groupOf(o.apiVersion) === 'rbac.authorization.k8s.io';
}

/**
 * Splits one apply set into Timoni's stages: CRDs, Namespaces and ClusterRoles (wait),
 * `*Class` kinds (wait), RBAC Roles, then everything else; each stage sorted. Empty
 * stages are left out.
 */
export function applyStages<T extends KubeObject | SortKey>(objects: readonly T[]): ApplyStage<T>[] {
  const stages: ApplyStage<T>[] = [
    { name: 'definitions', waitAfter: true, objects: [] },
    { name: 'classes', waitAfter: true, objects: [] },
    { name: 'roles', waitAfter: false, objects: [] },
    { name: 'resources', waitAfter: false, objects: [] },
  ];
  for (const object of objects) {
    const key = keyOf(object);
    const index = isClusterDefinition(key) ? 0 : isClassDefinition(key) ? 1 : isRole(key) ? 2 : 3;
    stages[index]!.objects.push(object);
  }
  return stages
    .filter((stage) => stage.objects.length > 0)
    .map((stage) => ({ ...stage, objects: sortForApply(stage.objects) }));
}
