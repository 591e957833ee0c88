// Finds the module each bundle instance names and reads it into memory once per run:
// `oci://` modules are pulled (the OCI client caches by digest), `file://` modules are
// read from disk. Every cluster and instance that uses the same module, version and
// digest shares one ModuleSource; only the values change between builds.
import type { CueEngine } from '../cue/index.js';
import { FileBoundary } from '../file-boundary.js';
import { loadLocalModule, LOCAL_PREFIX } from './local-module.js';
import { moduleNameOf, readModuleFiles } from './module-files.js';
import type { ModuleSource } from './module-source.js';
import { ModuleClient, type ModuleClientOptions } from './oci/index.js';

export interface ModuleRequest {
  url: string;
  version: string;
  digest?: string;
}

export class ModuleResolver {
  readonly #sources = new Map<string, Promise<ModuleSource>>();
  readonly #client: ModuleClient;

  constructor(
    private readonly engine: CueEngine,
    private readonly cwd: string,
    clientOptions: ModuleClientOptions = {},
    /** Where local (`file://`) modules may live; by default the working directory. */
    private readonly boundary: FileBoundary = new FileBoundary([cwd]),
  ) {
    this.#client = new ModuleClient(clientOptions);
  }

  resolve(request: ModuleRequest): Promise<ModuleSource> {
    const key = `${request.url}\n${request.version}\n${request.digest ?? ''}`;
    let source = this.#sources.get(key);
    if (!source) {
      source = this.#load(request);
      this.#sources.set(key, source);
      source.catch(() => this.#sources.delete(key));
    }
    return source;
  }

  async #load(request: ModuleRequest): Promise<ModuleSource> {
    if (request.url.startsWith(LOCAL_PREFIX)) return loadLocalModule(request.url, this.cwd, this.engine, this.boundary);
    const pulled = await this.#client.pull(request.url, request.version, request.digest);
    const files = readModuleFiles(pulled.dir);
    const name = moduleNameOf(this.engine, files) ?? '';
    return {
      url: request.url,
      version: pulled.version || request.version,
      digest: pulled.digest,
      name,
      files,
      root: pulled.dir,
      repository: pulled.repository,
      annotations: { ...pulled.annotations },
    };
  }
}
