// Discovery: the REST mapping of a cluster (group/version/kind -> resource and scope),
// read with aggregated discovery (two requests) or the legacy endpoints, and read again
// when a kind is unknown (e.g. after a CRD became established).
import type { KubeClient } from './client.js';
import { isRecord } from '../object.js';

export interface RestMapping {
  group: string;
  version: string;
  kind: string;
  /** Plural resource name, e.g. `deployments`. */
  resource: string;
  namespaced: boolean;
  /** The resource has a `status` subresource. */
  statusSubresource: boolean;
}

/** No resource of the cluster serves this kind (yet): a missing CRD, or a typo. */
export class NoMatchError extends Error {
  override name = 'NoMatchError';
  constructor(
    readonly cluster: string,
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(
      `cluster ${cluster}: no resource serves kind ${JSON.stringify(kind)} in ${JSON.stringify(apiVersion)} (is its CRD installed and established?)`,
    );
  }
}

const aggregatedAccept =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const key = (apiVersion: string, kind: string) => `${apiVersion}/${kind}`;

function list(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

/** Mappings from an APIGroupDiscoveryList (aggregated discovery). */
export function mappingsFromAggregated(document: Record<string, unknown>): RestMapping[] {
  const out: RestMapping[] = [];
  for (const group of list(document.items)) {
    const groupName = isRecord(group.metadata) && typeof group.metadata.name === 'string' ? group.metadata.name : '';
    for (const version of list(group.versions)) {
      for (const resource of list(version.resources)) {
        const kind = isRecord(resource.responseKind) ? String(resource.responseKind.kind ?? '') : '';
        if (!kind || typeof resource.resource !== 'string') continue;
        out.push({
          group: groupName,
          version: String(version.version),
          kind,
          resource: resource.resource,
          namespaced: resource.scope === 'Namespaced',
          statusSubresource: list(resource.subresources).some((sub) => sub.subresource === 'status'),
        });
      }
    }
  }
  return out;
}

/** Mappings from one legacy APIResourceList (`/api/v1`, `/apis/apps/v1`...). */
export function mappingsFromResourceList(
  group: string,
  version: string,
  document: Record<string, unknown>,
): RestMapping[] {
  const resources = list(document.resources);
  const names = new Set(resources.map((resource) => String(resource.name)));
  return resources
    .filter((resource) => typeof resource.name === 'string' && !resource.name.includes('/'))
    .map((resource) => ({
      group,
      version,
      kind: String(resource.kind),
      resource: String(resource.name),
      namespaced: resource.namespaced === true,
      statusSubresource: names.has(`${String(resource.name)}/status`),
    }));
}

export class Discovery {
  private mappings = new Map<string, RestMapping>();
  private loaded?: Promise<void>;
  private loadedAt = 0;
  private inflight?: Promise<void>;

  constructor(
    private readonly client: KubeClient,
    /** A kind not found triggers a new read at most this often. */
    private readonly minRefreshMs = 1_000,
    /** Ask for aggregated discovery (two requests); false reads every group version. */
    private readonly aggregated = true,
  ) {}

  /** Every mapping known after the last read (reads discovery if it was never read). */
  async all(): Promise<RestMapping[]> {
    await this.ensureLoaded();
    return [...this.mappings.values()];
  }

  /** The mapping of a kind; reads discovery again once when the kind is unknown. */
  async mapping(apiVersion: string, kind: string): Promise<RestMapping> {
    await this.ensureLoaded();
    let found = this.mappings.get(key(apiVersion, kind));
    if (!found && Date.now() - this.loadedAt >= this.minRefreshMs) {
      await this.refresh();
      found = this.mappings.get(key(apiVersion, kind));
    }
    if (!found) throw new NoMatchError(this.client.name, apiVersion, kind);
    return found;
  }

  /**
   * The mapping of a kind that is about to be served (a CRD just became established:
   * aggregated discovery follows a moment later); reads discovery again until it appears.
   */
  async waitForMapping(apiVersion: string, kind: string, timeoutMs = 30_000): Promise<RestMapping> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await this.mappingOrNull(apiVersion, kind);
      if (found) return found;
      if (Date.now() > deadline) throw new NoMatchError(this.client.name, apiVersion, kind);
      await new Promise((resolveTimer) => setTimeout(resolveTimer, 250));
      await this.refresh();
    }
  }

  /** The mapping, or null when no resource serves the kind. */
  async mappingOrNull(apiVersion: string, kind: string): Promise<RestMapping | null> {
    try {
      return await this.mapping(apiVersion, kind);
    } catch (error) {
      if (error instanceof NoMatchError) return null;
      throw error;
    }
  }

  /** Reads discovery again (call after CRDs became established); concurrent calls share one read. */
  refresh(): Promise<void> {
    if (!this.inflight) {
      this.inflight = this.load().finally(() => {
        this.inflight = undefined;
      });
      this.loaded = this.inflight;
    }
    return this.inflight;
  }

  private ensureLoaded(): Promise<void> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  private async load(): Promise<void> {
    try {
      const next = new Map<string, RestMapping>();
      for (const mapping of await this.read()) {
        const apiVersion = mapping.group ? `${mapping.group}/${mapping.version}` : mapping.version;
        if (!next.has(key(apiVersion, mapping.kind))) next.set(key(apiVersion, mapping.kind), mapping);
      }
      this.mappings = next;
      this.loadedAt = Date.now();
    } catch (error) {
      this.loaded = undefined;
      throw error;
    }
  }

  private async read(): Promise<RestMapping[]> {
    const accept = this.aggregated ? aggregatedAccept : 'application/json';
    const [core, groups] = await Promise.all([
      this.client.request<Record<string, unknown>>({ method: 'GET', path: '/api', accept }),
      this.client.request<Record<string, unknown>>({ method: 'GET', path: '/apis', accept }),
    ]);
    if (core.kind === 'APIGroupDiscoveryList' && groups.kind === 'APIGroupDiscoveryList') {
      return [...mappingsFromAggregated(core), ...mappingsFromAggregated(groups)];
    }
    // Legacy discovery: one request per group version.
    const versions: Array<[string, string, string]> = [];
    for (const version of Array.isArray(core.versions) ? core.versions.map(String) : [])
      versions.push(['', version, `/api/${version}`]);
    for (const group of list(groups.groups)) {
      for (const version of list(group.versions)) {
        versions.push([String(group.name), String(version.version), `/apis/${String(version.groupVersion)}`]);
      }
    }
    const lists = await Promise.all(
      versions.map(async ([group, version, path]) => {
        const document = await this.client.getOrNull<Record<string, unknown>>(path);
        return document ? mappingsFromResourceList(group, version, document) : [];
      }),
    );
    return lists.flat();
  }
}
