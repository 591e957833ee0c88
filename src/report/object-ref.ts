// How objects, modules and digests are named in reports, as Timoni names them.

import type { ModuleInfo, ObjectChange } from '../changeset.js';

/** `Deployment/apps/podinfo`, or `Namespace/apps` for a cluster-scoped object (Timoni's form). */
export function objectRef(change: Pick<ObjectChange, 'kind' | 'namespace' | 'name'>): string {
  return change.namespace ? `${change.kind}/${change.namespace}/${change.name}` : `${change.kind}/${change.name}`;
}

/** `sha256:0123456789ab`: the algorithm and the first 12 hex digits; other forms as they are. */
export function shortDigest(digest: string): string {
  const match = /^([a-z0-9]+):([0-9a-f]{12})[0-9a-f]*$/.exec(digest);
  return match ? `${match[1]}:${match[2]}` : digest;
}

/** `oci://ghcr.io/stefanprodan/modules/podinfo:6.5.4`, the module as `timoni` prints it. */
export function moduleRef(module: ModuleInfo): string {
  return module.version ? `${module.url}:${module.version}` : module.url;
}
