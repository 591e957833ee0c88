// The objects of one apply set, as Timoni reads them: null entries skipped, Kubernetes
// `*List` objects expanded to their items, kustomize configuration objects skipped, and
// every object's metadata checked (all problems reported, each with its CUE path).
import { objectMetadataProblems } from './object-metadata.js';

/** A built Kubernetes object; its metadata has been checked (name present, labels strings). */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isKubeList(item: Record<string, unknown>): boolean {
  return typeof item.kind === 'string' && item.kind.endsWith('List') && Array.isArray(item.items);
}

function isKustomization(item: Record<string, unknown>): boolean {
  return typeof item.apiVersion === 'string' && item.apiVersion.startsWith('kustomize.config.k8s.io/');
}

export function objectsOfSet(path: string, items: unknown[]): { objects: KubeObject[]; problems: string[] } {
  const objects: KubeObject[] = [];
  const problems: string[] = [];
  items.forEach((item, index) => {
    if (item === null) return;
    const at = `${path}[${index}]`;
    if (!isRecord(item)) {
      problems.push(`${at}: not an object`);
      return;
    }
    const expanded = isKubeList(item) ? (item.items as unknown[]) : [item];
    for (const candidate of expanded) {
      if (!isRecord(candidate)) {
        problems.push(`${at}: a list item is not an object`);
        continue;
      }
      if (isKustomization(candidate)) continue;
      const found = objectMetadataProblems(candidate);
      if (found.length > 0) problems.push(...found.map((problem) => `invalid object at path ${at}: ${problem}`));
      else objects.push(candidate as unknown as KubeObject);
    }
  });
  return { objects, problems };
}
