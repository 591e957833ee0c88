// The OCI registry client's public face: pull a Timoni module by URL, version and digest.
//
//   const client = new ModuleClient({ cacheDir, credentials, secrets: core.setSecret });
//   const module = await client.pull('oci://ghcr.io/org/modules/app', '1.2.3', digest);
//   // module.dir (read-only, shared), module.digest, module.version, module.repository
//
// One client per run: every pull of the same reference (or digest) shares one download.
// Failures are OciError, whose `code` tells the case and whose message names the module URL.
export {
  ModuleClient,
  pullModule,
  contentLayers,
  type ModuleClientOptions,
  type PulledModule,
  type PullLimits,
} from './pull.js';
export { ModuleCache, type CachedModule } from './cache.js';
export { OciError, type OciErrorCode } from './errors.js';
export {
  parseReference,
  moduleReference,
  repositoryUrl,
  referenceUrl,
  isLocalRegistry,
  type Reference,
} from './reference.js';
export type { Credential, CredentialOptions } from './credentials.js';
export type { RetryPolicy } from './retry.js';
export type { Platform } from './manifest.js';
