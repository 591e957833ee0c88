// Timoni's log line prefixes: `b:<bundle> > c:<cluster> > i:<instance> > message`, where
// the cluster part is left out for the default cluster.
import { DEFAULT_RUNTIME_NAME } from '../bundle/index.js';

export function logPrefix(bundle: string, cluster?: string, instance?: string): string {
  const parts = [`b:${bundle}`];
  if (cluster && cluster !== DEFAULT_RUNTIME_NAME) parts.push(`c:${cluster}`);
  if (instance) parts.push(`i:${instance}`);
  return parts.join(' > ');
}
