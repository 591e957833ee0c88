// The OCI registry client's public face: pull a Timoni module by URL, version and digest.
export { ModuleClient, pullModule, contentLayers, type ModuleClientOptions, type PulledModule, type PullLimits } from './pull.js';
export { ModuleCache, type CachedModule } from './cache.js';
export { OciError, type OciErrorCode } from './errors.js';
export { parseReference, moduleReference, repositoryUrl, referenceUrl, isLocalRegistry, type Reference } from './reference.js';
export type { Credential, CredentialOptions } from './credentials.js';
export type { RetryPolicy } from './retry.js';
export type { Platform } from './manifest.js';
