// A small typed Kubernetes API client for tests: GET, LIST, server-side apply (with
// dry-run), merge patches of the status subresource, DELETE. It speaks HTTPS with the
// client certificate of a kubeconfig context through node:https; no kubectl. The product's
// own client lives in src/kube/; this one only serves the tests and the fleet tooling.
import { Agent, request as httpsRequest } from 'node:https';
import { stringify } from 'yaml';
import { connectionFromKubeconfig, type Connection } from './kubeconfig.js';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: Array<{ manager?: string; operation?: string; subresource?: string }>;
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

/** Identifies one object; `namespace` is left out for cluster-scoped kinds. */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface ServerVersion {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  platform: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RequestOptions {
  query?: Record<string, string | undefined>;
  body?: string;
  contentType?: string;
  /** Milliseconds before the request is abandoned; 30 s by default. */
  timeoutMs?: number;
}

/** A response outside 2xx, with the API's Status reason and message when it sent one. */
export class KubeApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly contextName: string,
    readonly status: number,
    readonly reason: string | undefined,
    readonly body: string,
  ) {
    let message = body.trim().slice(0, 500);
    try {
      const parsed = JSON.parse(body) as { message?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // Not a Status object: keep the start of the raw body.
    }
    super(`${method} ${path} on ${contextName}: HTTP ${status}${reason ? ` ${reason}` : ''}: ${message}`);
    this.name = 'KubeApiError';
  }
}

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

export interface ApplyOptions {
  /** Field manager; `fleet-test` unless given. */
  fieldManager?: string;
  force?: boolean;
  /** Send `dryRun=All`: the server validates and answers without storing. */
  dryRun?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  dryRun?: boolean;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

function apiBase(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

export class KubeClient {
  readonly contextName: string;
  readonly server: string;
  private readonly connection: Connection;
  private readonly agent: Agent;
  private readonly discovery = new Map<string, Promise<ApiResource[]>>();

  constructor(connection: Connection) {
    this.connection = connection;
    this.contextName = connection.contextName;
    this.server = connection.server.replace(/\/+$/, '');
    this.agent = new Agent({
      ca: connection.ca,
      cert: connection.cert,
      key: connection.key,
      keepAlive: true,
      maxSockets: 8,
    });
  }

  /** A client for `contextName` (default: the current context) of kubeconfig text. */
  static fromKubeconfig(text: string, contextName?: string, path?: string): KubeClient {
    return new KubeClient(connectionFromKubeconfig(text, contextName, path));
  }

  /** The same server, trusted the same way, without a client certificate. */
  anonymous(): KubeClient {
    return new KubeClient({
      contextName: `${this.contextName} (anonymous)`,
      server: this.server,
      ca: this.connection.ca,
    });
  }

  /** The same server with other client credentials (PEM), e.g. a user without roles. */
  withClientCertificate(cert: Buffer, key: Buffer, label: string): KubeClient {
    return new KubeClient({
      contextName: `${this.contextName} (${label})`,
      server: this.server,
      ca: this.connection.ca,
      cert,
      key,
    });
  }

  /** Closes idle connections; the client stays usable. */
  close(): void {
    this.agent.destroy();
  }

  /** Sends one request and returns the response whatever its status. */
  request(method: string, path: string, options: RequestOptions = {}): Promise<RawResponse> {
    const url = new URL(this.server + path);
    for (const [key, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) url.searchParams.set(key, value);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.body !== undefined) {
      headers['content-type'] = options.contentType ?? 'application/json';
      headers['content-length'] = String(Buffer.byteLength(options.body));
    }
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        { method, headers, agent: this.agent, timeout: options.timeoutMs ?? 30_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
        },
      );
      req.on('timeout', () =>
        req.destroy(
          new Error(`${method} ${path} on ${this.contextName}: no answer within ${options.timeoutMs ?? 30_000} ms`),
        ),
      );
      req.on('error', (error) =>
        reject(
          new Error(`${method} ${url.pathname} on ${this.contextName} (${this.server}) failed: ${error.message}`, {
            cause: error,
          }),
        ),
      );
      req.end(options.body);
    });
  }

  /** Sends a request and parses the JSON answer; throws KubeApiError outside 2xx. */
  async requestJson<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.request(method, path, options);
    if (response.status < 200 || response.status > 299) {
      let reason: string | undefined;
      try {
        const parsed = JSON.parse(response.body) as { reason?: unknown };
        if (typeof parsed.reason === 'string') reason = parsed.reason;
      } catch {
        reason = undefined;
      }
      throw new KubeApiError(method, path, this.contextName, response.status, reason, response.body);
    }
    return JSON.parse(response.body) as T;
  }

  version(): Promise<ServerVersion> {
    return this.requestJson<ServerVersion>('GET', '/version');
  }

  private resources(apiVersion: string, refresh: boolean): Promise<ApiResource[]> {
    let cached = this.discovery.get(apiVersion);
    if (!cached || refresh) {
      cached = this.requestJson<{ resources: ApiResource[] }>('GET', apiBase(apiVersion)).then((list) =>
        list.resources.filter((resource) => !resource.name.includes('/')),
      );
      cached.catch(() => this.discovery.delete(apiVersion));
      this.discovery.set(apiVersion, cached);
    }
    return cached;
  }

  /** The resource (plural name, scope) serving `kind` in `apiVersion`, from discovery. */
  async resourceFor(apiVersion: string, kind: string): Promise<ApiResource> {
    let found = (await this.resources(apiVersion, false)).find((resource) => resource.kind === kind);
    // A CustomResourceDefinition may have been added since the last discovery.
    found ??= (await this.resources(apiVersion, true)).find((resource) => resource.kind === kind);
    if (!found) throw new Error(`${this.contextName} serves no kind ${kind} in ${apiVersion}`);
    return found;
  }

  /** The URL path of an object, or of its collection when `name` is omitted. */
  async pathFor(ref: { apiVersion: string; kind: string; namespace?: string; name?: string }): Promise<string> {
    const resource = await this.resourceFor(ref.apiVersion, ref.kind);
    let path = apiBase(ref.apiVersion);
    if (resource.namespaced) {
      if (ref.namespace) path += `/namespaces/${encodeURIComponent(ref.namespace)}`;
      else if (ref.name) throw new Error(`${ref.kind} ${ref.name} is namespaced: give its namespace`);
    }
    path += `/${resource.name}`;
    if (ref.name) path += `/${encodeURIComponent(ref.name)}`;
    return path;
  }

  async get<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T> {
    return this.requestJson<T>('GET', await this.pathFor(ref));
  }

  /** The object, or null when it does not exist. */
  async getOrNull<T extends KubeObject = KubeObject>(ref: ObjectRef): Promise<T | null> {
    try {
      return await this.get<T>(ref);
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return null;
      throw error;
    }
  }

  /** Lists a kind, in one namespace or (without `namespace`) in all. */
  async list<T extends KubeObject = KubeObject>(
    apiVersion: string,
    kind: string,
    options: ListOptions = {},
  ): Promise<KubeList<T>> {
    const path = await this.pathFor({ apiVersion, kind, namespace: options.namespace });
    return this.requestJson<KubeList<T>>('GET', path, {
      query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
    });
  }

  /** Server-side apply (PATCH application/apply-patch+yaml); returns the object the server answers. */
  async apply<T extends KubeObject = KubeObject>(object: KubeObject, options: ApplyOptions = {}): Promise<T> {
    const path = await this.pathFor({ ...object, name: object.metadata.name, namespace: object.metadata.namespace });
    return this.requestJson<T>('PATCH', path, {
      body: stringify(object),
      contentType: 'application/apply-patch+yaml',
      query: {
        fieldManager: options.fieldManager ?? 'fleet-test',
        force: options.force ? 'true' : undefined,
        dryRun: options.dryRun ? 'All' : undefined,
      },
    });
  }

  /** JSON merge patch of the status subresource. */
  async patchStatus<T extends KubeObject = KubeObject>(ref: ObjectRef, patch: Record<string, unknown>): Promise<T> {
    return this.requestJson<T>('PATCH', `${await this.pathFor(ref)}/status`, {
      body: JSON.stringify(patch),
      contentType: 'application/merge-patch+json',
    });
  }

  /** Deletes an object; resolves false when it did not exist. */
  async delete(ref: ObjectRef, options: DeleteOptions = {}): Promise<boolean> {
    try {
      await this.requestJson('DELETE', await this.pathFor(ref), {
        query: { propagationPolicy: options.propagationPolicy, dryRun: options.dryRun ? 'All' : undefined },
      });
      return true;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return false;
      throw error;
    }
  }
}
