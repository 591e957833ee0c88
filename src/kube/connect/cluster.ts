// One cluster of the fleet as the engine sees it: a client, its discovery, and the
// object-level requests (get, list, delete) built on the REST mapping.
import { KubeClient, type KubeClientOptions } from './client.js';
import { connectionFor, type ConnectionOptions } from './connection.js';
import { Discovery, type RestMapping } from './discovery.js';
import { KubeApiError } from './errors.js';
import type { Kubeconfig } from './kubeconfig.js';
import { formatRef, groupOf, refOf, versionOf, type KubeObject, type ObjectRef } from '../object.js';

export interface ObjectLocation {
  mapping: RestMapping;
  /** Path of the object itself, e.g. `/apis/apps/v1/namespaces/apps/deployments/web`. */
  path: string;
  /** The object's namespace after scoping: empty for cluster-scoped kinds. */
  namespace: string;
}

export class KubeCluster {
  readonly discovery: Discovery;

  constructor(readonly client: KubeClient) {
    this.discovery = new Discovery(client);
  }

  get name(): string {
    return this.client.name;
  }

  /** Where an object lives; a namespaced kind needs a namespace, a cluster-scoped kind drops it. */
  async locate(ref: ObjectRef): Promise<ObjectLocation> {
    const mapping = await this.discovery.mapping(ref.apiVersion, ref.kind);
    const namespace = mapping.namespaced ? ref.namespace : '';
    if (mapping.namespaced && !namespace) {
      throw new Error(`cluster ${this.name}: ${formatRef(ref)}: namespace not specified for a namespaced kind`);
    }
    const path = `${collectionPath(mapping, namespace)}/${encodeURIComponent(ref.name)}`;
    // `.` and `..` survive encodeURIComponent and URL resolution folds them away: a GET of
    // one object would become a LIST of a namespace, or of the whole cluster.
    if (
      new URL(path, 'http://api.invalid').pathname !== path ||
      ref.name === '' ||
      ref.name === '.' ||
      ref.name === '..'
    ) {
      throw new Error(
        `cluster ${this.name}: ${formatRef(ref)}: the name or namespace is not a valid object path segment`,
      );
    }
    return { mapping, namespace, path };
  }

  /**
   * The object's identity with the namespace cleared for cluster-scoped kinds (what the
   * inventory records); a kind not served yet keeps the namespace it was built with.
   */
  async scopedRef(object: KubeObject): Promise<ObjectRef> {
    const ref = refOf(object);
    const mapping = await this.discovery.mappingOrNull(ref.apiVersion, ref.kind);
    return mapping && !mapping.namespaced ? { ...ref, namespace: '' } : ref;
  }

  /** The live object, or null when it does not exist. */
  async get(ref: ObjectRef): Promise<KubeObject | null> {
    const { path } = await this.locate(ref);
    const object = await this.client.getOrNull<KubeObject>(path, ref);
    // One object was asked for; a list (of Secrets, say) is never handed on.
    if (
      object &&
      (Array.isArray((object as { items?: unknown }).items) ||
        (typeof object.kind === 'string' && object.kind !== ref.kind))
    ) {
      throw new Error(
        `cluster ${this.name}: ${formatRef(ref)}: the API server answered with ${String(object.kind)} instead of one ${ref.kind}; not used`,
      );
    }
    return object;
  }

  /** Objects of a kind, in a namespace (or all namespaces with ''), filtered by labels. */
  async list(
    apiVersion: string,
    kind: string,
    namespace: string,
    labelSelector?: Record<string, string>,
  ): Promise<KubeObject[]> {
    const mapping = await this.discovery.mapping(apiVersion, kind);
    const selector = labelSelector
      ? Object.entries(labelSelector)
          .map(([k, v]) => `${k}=${v}`)
          .join(',')
      : undefined;
    const answer = await this.client.request<{ items?: KubeObject[] }>({
      method: 'GET',
      path: collectionPath(mapping, mapping.namespaced ? namespace : ''),
      query: { labelSelector: selector },
    });
    // List items carry no apiVersion/kind: put them back.
    return (answer.items ?? []).map((item) => ({ ...item, apiVersion, kind }));
  }

  /** Deletes an object (background propagation); false when it was already gone. */
  async delete(
    ref: ObjectRef,
    propagationPolicy: 'Background' | 'Foreground' | 'Orphan' = 'Background',
  ): Promise<boolean> {
    const { path } = await this.locate(ref);
    try {
      await this.client.request({
        method: 'DELETE',
        path,
        object: ref,
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy },
      });
      return true;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return false;
      throw error;
    }
  }

  close(): void {
    this.client.close();
  }
}

/** `/api/v1/namespaces/ns/configmaps`, `/apis/apps/v1/deployments`... */
export function collectionPath(
  mapping: Pick<RestMapping, 'group' | 'version' | 'resource'>,
  namespace: string,
): string {
  const base = mapping.group ? `/apis/${mapping.group}/${mapping.version}` : `/api/${mapping.version}`;
  return namespace
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${mapping.resource}`
    : `${base}/${mapping.resource}`;
}

export interface OpenClusterOptions extends ConnectionOptions, KubeClientOptions {}

/** A cluster reached through a kube context (default: the current context). */
export function openCluster(
  config: Kubeconfig,
  contextName: string | undefined,
  options: OpenClusterOptions,
): KubeCluster {
  return new KubeCluster(new KubeClient(connectionFor(config, contextName, options), options));
}

export { groupOf, versionOf };
