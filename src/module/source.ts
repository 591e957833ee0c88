// Where a module comes from, read into memory once per run: `oci://` modules are pulled
// (the OCI client caches by digest), `file://` modules are read from disk. Every cluster and
// instance that uses the same module, version and digest shares one ModuleSource; only the
// values change between builds.
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { walkInside } from '../bundle/sources.js';
import type { CueEngine } from '../cue/index.js';
import { FileBoundary } from '../file-boundary.js';
import { ModuleClient, type ModuleClientOptions } from './oci/index.js';

// A module ready to build: its files in memory (read once, shared by every cluster and
// instance that uses it), where it came from, and its version and digest.

export interface ModuleSource {
  /** The URL as the bundle names it (`oci://...` or `file://...`). */
  url: string;
  /** The version used: the tag pulled, or `0.0.0-devel` for local modules. */
  version: string;
  /** `sha256:...` of the manifest for OCI modules; `unknown` for local modules. */
  digest: string;
  /** The module name from `cue.mod/module.cue` (e.g. `timoni.sh/podinfo`). */
  name: string;
  /** Files by path relative to the module root (posix separators). */
  files: Record<string, string | Uint8Array>;
  /** Where the files are on disk. */
  root: string;
  /** Pulled modules: `oci://<registry>/<repository>` as Timoni records it (Docker Hub as index.docker.io). */
  repository?: string;
  /**
   * Annotations of the module artifact's manifest (`org.opencontainers.image.version`,
   * `sh.timoni.images`, ...), recorded in the instance record as Timoni does; none for
   * local modules.
   */
  annotations?: Record<string, string>;
  /**
   * Local modules: the module folder relative to the working directory (`.` for itself),
   * so that error positions can point at the real files (annotations). Pulled modules have
   * none: their files exist only in the cache, and errors name them relative to the module.
   */
  localPath?: string;
}

export const DEVEL_VERSION = '0.0.0-devel';
export const LOCAL_DIGEST = 'unknown';

// Reads a module folder into memory for the CUE engine: every file under it except
// version-control folders, text as strings and the rest as bytes (CUE may embed them).

const SKIPPED_FOLDERS = new Set(['.git', '.hg', '.svn', 'node_modules']);
/** A module is source code; anything larger is most likely a mistake. */
export const MODULE_FILE_LIMIT_BYTES = 32 * 1024 * 1024;

export class ModuleFilesError extends Error {}

function isText(data: Buffer): boolean {
  return !data.subarray(0, 8000).includes(0);
}

/**
 * Every file of the module folder (what CUE may load or `@embed`), each checked to resolve,
 * after symlinks, inside the boundary (by default the module folder itself).
 */
export function readModuleFiles(
  root: string,
  boundary: FileBoundary = new FileBoundary([root]),
): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {};
  let total = 0;
  try {
    walkInside(
      root,
      boundary,
      (path, real) => {
        total += statSync(real).size;
        if (total > MODULE_FILE_LIMIT_BYTES) {
          throw new ModuleFilesError(
            `module at ${root} holds more than ${MODULE_FILE_LIMIT_BYTES / 1024 / 1024} MiB of files`,
          );
        }
        const data = readFileSync(real);
        const key = relative(root, path).split('\\').join('/');
        files[key] = isText(data) ? data.toString('utf8') : new Uint8Array(data);
      },
      (name) => SKIPPED_FOLDERS.has(name),
    );
  } catch (error) {
    if (error instanceof ModuleFilesError) throw error;
    throw new ModuleFilesError(`module at ${root}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return files;
}

/** The module name declared in cue.mod/module.cue (`module: "example.com/app"`). */
export function moduleNameOf(engine: CueEngine, files: Record<string, string | Uint8Array>): string | undefined {
  const text = files['cue.mod/module.cue'];
  if (typeof text !== 'string') return undefined;
  const value = engine.compile(text, { filename: 'cue.mod/module.cue' });
  const name = value.lookup('module');
  try {
    return name.exists() && name.kind() === 'string' ? (name.toJSON() as string) : undefined;
  } finally {
    name.free();
    value.free();
  }
}

// `file://` modules: a folder on disk, relative URLs resolved against the working
// directory (the bundle layer has already made them relative to the declaring file).
// Like Timoni, the folder must hold cue.mod/module.cue, timoni.cue and values.cue; the
// version is 0.0.0-devel and the digest is unknown.

export const LOCAL_PREFIX = 'file://';
const REQUIRED_FILES = ['cue.mod/module.cue', 'timoni.cue', 'values.cue'];

export class LocalModuleError extends Error {
  constructor(url: string, reason: string) {
    super(`module ${url}: ${reason}`);
    this.name = 'LocalModuleError';
  }
}

/**
 * Reads a local module. Its folder must resolve inside the boundary (by default the working
 * directory): a bundle may not point `file://` at `/etc` or `../../..`.
 */
export function loadLocalModule(
  url: string,
  cwd: string,
  engine: CueEngine,
  boundary: FileBoundary = new FileBoundary([cwd]),
): ModuleSource {
  const path = url.slice(LOCAL_PREFIX.length);
  const root = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(root)) throw new LocalModuleError(url, `no module folder at ${root}`);
  const realRoot = realpathSync(root);
  if (!boundary.contains(realRoot)) {
    const where = realRoot === resolve(root) ? root : `${root} (which points to ${realRoot})`;
    throw new LocalModuleError(
      url,
      `the module folder ${where} is outside ${boundary.describe()}; local modules must live inside it`,
    );
  }
  if (!statSync(root).isDirectory()) throw new LocalModuleError(url, `no module folder at ${root}`);
  for (const required of REQUIRED_FILES) {
    if (!existsSync(join(root, required)))
      throw new LocalModuleError(url, `required file not found: ${join(root, required)}`);
  }
  let files: Record<string, string | Uint8Array>;
  try {
    files = readModuleFiles(root, boundary);
  } catch (error) {
    throw new LocalModuleError(
      url,
      error instanceof Error ? error.message.replace(`module at ${root}: `, '') : String(error),
    );
  }
  const name = moduleNameOf(engine, files);
  if (!name) throw new LocalModuleError(url, `cue.mod/module.cue in ${root} declares no module name`);
  return {
    url,
    version: DEVEL_VERSION,
    digest: LOCAL_DIGEST,
    name,
    files,
    root,
    localPath: relative(cwd, root).split('\\').join('/') || '.',
  };
}

// The resolver: one load per module, version and digest for the run; a failed load is
// forgotten, so that the next use tries again.

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
