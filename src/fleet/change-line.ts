// Log lines in Timoni's style: `b:apps > c:staging-1 > i:podinfo > Deployment/apps/podinfo
// configured`; the cluster part is left out for the default cluster.
import { DEFAULT_RUNTIME_NAME } from '../bundle/index.js';
import type { ObjectChange } from '../changeset.js';

export function logPrefix(bundle: string, cluster?: string, instance?: string): string {
  const parts = [`b:${bundle}`];
  if (cluster && cluster !== DEFAULT_RUNTIME_NAME) parts.push(`c:${cluster}`);
  if (instance) parts.push(`i:${instance}`);
  return parts.join(' > ');
}

export function changeLine(bundle: string, cluster: string, instance: string, change: Pick<ObjectChange, 'kind' | 'namespace' | 'name' | 'action'>): string {
  const object = [change.kind, change.namespace, change.name].filter(Boolean).join('/');
  return `${logPrefix(bundle, cluster, instance)} > ${object} ${change.action}`;
}
