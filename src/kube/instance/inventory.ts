// The instance inventory exactly as Timoni v0.33 stores it (internal/runtime/storage.go,
// api/v1alpha1/instance.go, inventory.go): Secret `timoni.<instance>` of type
// `timoni.sh/instance`, `data.instance` = the Instance as Go's encoding/json writes it.
// Pure functions: encode, decode, entry ids.
import { sortForApply } from '../ssa/index.js';
import { groupOf, isRecord, versionOf, type KubeObject, type ObjectRef } from '../object.js';

export const instanceKind = 'Instance';
export const instanceApiVersion = 'timoni.sh/v1alpha1';
export const instanceSecretType = 'timoni.sh/instance';
export const instanceSecretPrefix = 'timoni.';
export const instanceDataKey = 'instance';
export const pendingDataKey = 'pending';
export const bundleNameLabel = 'bundle.timoni.sh/name';
export const instanceLabels = {
  name: 'app.kubernetes.io/name',
  component: 'app.kubernetes.io/component',
  createdBy: 'app.kubernetes.io/created-by',
} as const;
/** Labels the engine puts on every object of an instance (fluxcd ssa owner labels). */
export const ownerLabels = {
  name: 'instance.timoni.sh/name',
  namespace: 'instance.timoni.sh/namespace',
} as const;

export interface ModuleReference {
  name: string;
  /** `oci://...` or `file://...`. */
  repository: string;
  version: string;
  digest: string;
  /** The pulled artifact's manifest annotations (`org.opencontainers.image.version`, `sh.timoni.images`). */
  annotations?: Record<string, string>;
}

export interface InventoryEntry {
  /** `<namespace>_<name>_<group>_<Kind>`. */
  id: string;
  /** API version without the group (`v1`). */
  v: string;
}

export interface InstanceRecord {
  name: string;
  namespace: string;
  /** metadata.labels; when written, `bundle.timoni.sh/name` of the owning bundle. */
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  module: ModuleReference;
  /**
   * The instance values as CUE text (not JSON): the evaluated values struct alone
   * (`{\n\treplicas: 2\n}`), as Timoni's GetDefaultValues prints it.
   */
  values: string;
  /** UTC RFC 3339 time of the last inventory change. */
  lastTransitionTime?: string;
  /** null `entries` is what Timoni writes for an instance without objects. */
  inventory?: { entries: InventoryEntry[] | null };
  images?: string[];
  /** Set when read from a cluster: the Secret's creation time. */
  creationTimestamp?: string;
}

const rbacKinds = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

/** cli-utils ObjMetadata.String(): RBAC names have `:` written as `__`. */
export function inventoryEntryId(ref: Pick<ObjectRef, 'apiVersion' | 'kind' | 'namespace' | 'name'>): string {
  const group = groupOf(ref.apiVersion);
  const name =
    group === 'rbac.authorization.k8s.io' && rbacKinds.has(ref.kind) ? ref.name.replaceAll(':', '__') : ref.name;
  return `${ref.namespace}_${name}_${group}_${ref.kind}`;
}

/** cli-utils ParseObjMetadata: namespace first, kind and group last, the rest is the name. */
export function parseInventoryEntry(entry: InventoryEntry): ObjectRef {
  const fail = () => new Error(`inventory entry ${JSON.stringify(entry.id)} is not <namespace>_<name>_<group>_<kind>`);
  const first = entry.id.indexOf('_');
  if (first < 0) throw fail();
  const namespace = entry.id.slice(0, first);
  let rest = entry.id.slice(first + 1);
  const kindAt = rest.lastIndexOf('_');
  if (kindAt < 0) throw fail();
  const kind = rest.slice(kindAt + 1);
  rest = rest.slice(0, kindAt);
  const groupAt = rest.lastIndexOf('_');
  if (groupAt < 0) throw fail();
  const group = rest.slice(groupAt + 1);
  const name = rest.slice(0, groupAt).replaceAll('__', ':');
  return { apiVersion: group ? `${group}/${entry.v}` : entry.v, kind, namespace, name };
}

/**
 * Inventory entries of the objects (namespace already cleared for cluster-scoped kinds),
 * in fluxcd ssa sort order as Timoni's InstanceManager.AddObjects writes them.
 */
export function inventoryEntries(objects: Array<ObjectRef | KubeObject>): InventoryEntry[] {
  const refs = objects.map((o) =>
    'metadata' in o
      ? {
          apiVersion: o.apiVersion,
          kind: o.kind,
          namespace: (o as KubeObject).metadata.namespace ?? '',
          name: (o as KubeObject).metadata.name,
        }
      : (o as ObjectRef),
  );
  return sortForApply(refs).map((ref) => ({ id: inventoryEntryId(ref), v: versionOf(ref.apiVersion) }));
}

/** Go's encoding/json escapes <, >, & and the two JS line separators inside strings. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function sortedMap(map: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!map || Object.keys(map).length === 0) return undefined;
  return Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((key) => [key, map[key]!]),
  );
}

/** `data.instance` bytes: the Instance with Go's field order, omitempty rules and escaping. */
export function encodeInstance(instance: InstanceRecord): string {
  // Property order follows the Go struct fields; undefined properties are dropped, which is
  // what `omitempty`/`omitzero` do for these fields.
  const document = {
    kind: instanceKind,
    apiVersion: instanceApiVersion,
    metadata: {
      name: instance.name || undefined,
      namespace: instance.namespace || undefined,
      labels: sortedMap(instance.labels),
      annotations: sortedMap(instance.annotations),
    },
    module: {
      name: instance.module.name,
      repository: instance.module.repository,
      version: instance.module.version,
      digest: instance.module.digest,
      annotations: sortedMap(instance.module.annotations),
    },
    values: instance.values,
    lastTransitionTime: instance.lastTransitionTime || undefined,
    inventory: instance.inventory
      ? {
          entries: instance.inventory.entries?.length
            ? instance.inventory.entries.map((e) => ({ id: e.id, v: e.v }))
            : null,
        }
      : undefined,
    images: instance.images?.length ? instance.images : undefined,
  };
  return goJson(document);
}

function stringMap(value: unknown): Record<string, string> | undefined {
  if (!isRecord(value)) return undefined;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, String(v)]));
}

/** Reads `data.instance` (the decoded JSON text). */
export function decodeInstance(text: string, where: string): InstanceRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(`${where}: instance data is not JSON`);
  }
  if (!isRecord(raw)) throw new Error(`${where}: instance data is not an object`);
  const metadata = isRecord(raw.metadata) ? raw.metadata : {};
  const module = isRecord(raw.module) ? raw.module : {};
  const inventory = isRecord(raw.inventory) ? raw.inventory : undefined;
  return {
    name: String(metadata.name ?? ''),
    namespace: String(metadata.namespace ?? ''),
    labels: stringMap(metadata.labels),
    annotations: stringMap(metadata.annotations),
    module: {
      name: String(module.name ?? ''),
      repository: String(module.repository ?? ''),
      version: String(module.version ?? ''),
      digest: String(module.digest ?? ''),
      annotations: stringMap(module.annotations),
    },
    values: String(raw.values ?? ''),
    lastTransitionTime: typeof raw.lastTransitionTime === 'string' ? raw.lastTransitionTime : undefined,
    inventory: inventory
      ? {
          entries: Array.isArray(inventory.entries)
            ? inventory.entries.filter(isRecord).map((e) => ({ id: String(e.id ?? ''), v: String(e.v ?? '') }))
            : null,
        }
      : undefined,
    images: Array.isArray(raw.images) ? raw.images.map(String) : undefined,
  };
}

export function instanceSecretName(instance: string): string {
  return `${instanceSecretPrefix}${instance}`;
}

/** The Secret Timoni writes for an instance (its labels, plus the instance's own labels). */
export function instanceSecret(instance: InstanceRecord): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: instanceSecretName(instance.name),
      namespace: instance.namespace,
      labels: {
        [instanceLabels.name]: instance.name,
        [instanceLabels.component]: 'instance',
        [instanceLabels.createdBy]: 'timoni',
        ...instance.labels,
      },
    },
    type: instanceSecretType,
    data: { [instanceDataKey]: Buffer.from(encodeInstance(instance)).toString('base64') },
  };
}

export interface DecodedInstanceSecret {
  instance: InstanceRecord;
  /** The in-flight revision of an unfinished upgrade (`data.pending`), if any. */
  pending?: InstanceRecord;
}

/** Reads an instance Secret; labels, annotations and creation time come from the Secret (as Timoni does). */
export function decodeInstanceSecret(secret: KubeObject): DecodedInstanceSecret {
  const where = `Secret/${secret.metadata.namespace ?? ''}/${secret.metadata.name}`;
  const data = isRecord(secret.data) ? secret.data : {};
  const encoded = data[instanceDataKey];
  if (typeof encoded !== 'string') throw new Error(`${where}: instance data not found`);
  const instance = decodeInstance(Buffer.from(encoded, 'base64').toString('utf8'), where);
  instance.labels = secret.metadata.labels ? { ...secret.metadata.labels } : undefined;
  instance.annotations = secret.metadata.annotations ? { ...secret.metadata.annotations } : undefined;
  if (typeof secret.metadata.creationTimestamp === 'string')
    instance.creationTimestamp = secret.metadata.creationTimestamp;
  const pendingData = data[pendingDataKey];
  const pending =
    typeof pendingData === 'string'
      ? decodeInstance(Buffer.from(pendingData, 'base64').toString('utf8'), `${where} (pending)`)
      : undefined;
  return pending ? { instance, pending } : { instance };
}

/** `2026-01-02T03:04:05Z`: Go's time.RFC3339 of a UTC time (no fraction). */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
