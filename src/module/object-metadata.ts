// Checks that a built object can be applied and tracked: apiVersion, kind and
// metadata.name present; name, namespace, labels and annotations valid under the
// kube-apiserver's ObjectMeta rules (as Timoni checks them before applying). One message
// per violation, so that a module author sees every problem at once. Names and keys are
// quoted with quote(): a name that fails these rules can hold any character, and the
// message is printed in the log and the pull request comment.

import { quote } from '../display-text.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

function dnsSubdomainProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push('must be no more than 253 characters');
  if (!DNS_SUBDOMAIN.test(value)) problems.push(`must match regex '${DNS_SUBDOMAIN.source.slice(1, -1)}'`);
  return problems;
}

function dnsLabelProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!DNS_LABEL.test(value)) problems.push(`must match regex '${DNS_LABEL.source.slice(1, -1)}'`);
  return problems;
}

function pathSegmentProblems(value: string): string[] {
  if (value === '.' || value === '..') return [`may not be '${value}'`];
  const problems: string[] = [];
  for (const bad of ['/', '%']) if (value.includes(bad)) problems.push(`may not contain '${bad}'`);
  return problems;
}

function qualifiedNameProblems(key: string): string[] {
  const slash = key.lastIndexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  const problems: string[] = [];
  if (prefix !== undefined) {
    if (prefix === '') problems.push('prefix part must be non-empty');
    else problems.push(...dnsSubdomainProblems(prefix).map((p) => `prefix part ${p}`));
  }
  if (name === '') problems.push('name part must be non-empty');
  else {
    if (name.length > 63) problems.push('name part must be no more than 63 characters');
    if (!QUALIFIED_NAME.test(name)) problems.push(`name part must match regex '${QUALIFIED_NAME.source.slice(1, -1)}'`);
  }
  return problems;
}

function labelValueProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 63) problems.push('must be no more than 63 characters');
  if (!LABEL_VALUE.test(value)) problems.push(`must match regex '${LABEL_VALUE.source.slice(1, -1)}'`);
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRbacObject(apiVersion: string, kind: string): boolean {
  return RBAC_KINDS.has(kind) && apiVersion.startsWith('rbac.authorization.k8s.io/');
}

export function objectMetadataProblems(object: Record<string, unknown>): string[] {
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const kind = typeof object.kind === 'string' ? object.kind : '';
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const missing = [!apiVersion && 'apiVersion', !kind && 'kind', !name && 'metadata.name'].filter(Boolean);
  if (missing.length > 0) return [`missing required field(s) ${missing.join(', ')}`];

  const problems: string[] = [];
  const nameProblems = isRbacObject(apiVersion, kind) ? pathSegmentProblems(name) : dnsSubdomainProblems(name);
  problems.push(...nameProblems.map((p) => `metadata.name ${quote(name)} ${p}`));
  if (typeof metadata.namespace === 'string' && metadata.namespace !== '') {
    problems.push(
      ...dnsLabelProblems(metadata.namespace).map(
        (p) => `metadata.namespace ${quote(metadata.namespace as string)} ${p}`,
      ),
    );
  }
  if (isRecord(metadata.labels)) {
    for (const key of Object.keys(metadata.labels).sort()) {
      const value = metadata.labels[key];
      if (typeof value !== 'string') {
        problems.push(`metadata.labels[${quote(key)}] must be a string`);
        continue;
      }
      problems.push(...qualifiedNameProblems(key).map((p) => `metadata.labels[${quote(key)}] key ${p}`));
      problems.push(...labelValueProblems(value).map((p) => `metadata.labels[${quote(key)}] value ${p}`));
    }
  }
  if (isRecord(metadata.annotations)) {
    let total = 0;
    for (const key of Object.keys(metadata.annotations).sort()) {
      const value = metadata.annotations[key];
      if (typeof value !== 'string') {
        problems.push(`metadata.annotations[${quote(key)}] must be a string`);
        continue;
      }
      problems.push(
        ...qualifiedNameProblems(key.toLowerCase()).map((p) => `metadata.annotations[${quote(key)}] key ${p}`),
      );
      total += Buffer.byteLength(key) + Buffer.byteLength(value);
    }
    if (total > TOTAL_ANNOTATION_SIZE_LIMIT)
      problems.push(`metadata.annotations total size must be at most ${TOTAL_ANNOTATION_SIZE_LIMIT} bytes`);
  }
  return problems;
}
