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
