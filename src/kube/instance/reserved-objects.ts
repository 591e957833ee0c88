// The objects a bundle may not apply: the records that timoni-fleet and Timoni read back
// from a cluster, and anything that looks like one. A pull request's author controls every
// object the bundle applies; a bundle object written over (or beside) one of these records
// would decide what a later run deletes, which revision a rollback puts back, or which
// runtime cluster a context reaches. This is the one rule: the diff shows each such object
// `failed` with the reason (instance-diff.ts), the apply refuses the cluster before its
// first write (../../fleet/instance-failures.ts, and instance-apply.ts as a second guard),
// and a rollback to a revision's build goes through the same two.
//
// The records read back (docs/architecture.md lists them too):
//   - Timoni's instance record: Secret `timoni.<instance>` (type `timoni.sh/instance`), in
//     the instance's namespace, found by name (readInstance) or by the labels
//     `app.kubernetes.io/component: instance` + `app.kubernetes.io/created-by: timoni`
//     (listInstances: removed instances, leaving clusters, orphans, status, delete);
//     refused: a Secret of that name or type, or any object with those two labels, in any
//     namespace;
//   - the instance history: Secret `timoni-fleet-history.<instance>` (type
//     `timoni-fleet.io/history`, labels `app.kubernetes.io/managed-by: timoni-fleet`,
//     `timoni-fleet.io/instance`); refused: a Secret of that name or type, or any object
//     with the `timoni-fleet.io/instance` label (`managed-by: timoni-fleet` alone is a
//     label users put on their own objects, and no read selects by it);
//   - the cluster identity record: ConfigMap `timoni-fleet-identity` (or the run's
//     `cluster-identity-record`) in kube-system, labels IDENTITY_LABELS; refused: a ConfigMap
//     of the configured or the default name in kube-system (or with no namespace), or any
//     object carrying the identity labels.
// Other reads of a cluster are not records: the live objects a diff, a wait or a prune
// reads are the bundle's own; the kube-system Namespace's UID is the server's; a runtime
// query reads the object its runtime names.
import type { ObjectChange } from '../../changeset.js';
import { DEFAULT_IDENTITY_RECORD, IDENTITY_LABELS, IDENTITY_NAMESPACE } from '../connect/index.js';
import { historyLabels, historySecretPrefix, historySecretType } from './history-store.js';
import { instanceLabels, instanceSecretPrefix, instanceSecretType } from './inventory.js';
import { formatRef, groupOf, isRecord, type KubeObject } from '../object.js';

export interface ReservedObjectRules {
  /** The identity record's ConfigMap name the run reads (`cluster-identity-record`); default `timoni-fleet-identity`. */
  identityRecord?: string;
}

/** What every refusal says first; `isReservedRefusal` tells a refused change by it. */
const REFUSED = 'refused: a bundle may not apply an object that has the';

const reasons = {
  instance: `${REFUSED} name or labels of a Timoni instance record, which timoni-fleet and Timoni read back`,
  history: `${REFUSED} name or labels of a timoni-fleet instance history, which a rollback reads back`,
  identity: `${REFUSED} name or labels of the cluster identity record, which timoni-fleet reads back to tell clusters apart`,
} as const;

const isCoreKind = (object: KubeObject, kind: string) => object.kind === kind && groupOf(object.apiVersion) === '';

function labelsOf(object: KubeObject): Record<string, unknown> {
  return isRecord(object.metadata?.labels) ? object.metadata.labels : {};
}

/**
 * Why the bundle may not apply this object (the reason, starting `refused:`), or null when
 * it may. Names compare as the API server stores them (exactly).
 */
export function reservedObjectReason(object: KubeObject, rules: ReservedObjectRules = {}): string | null {
  const name = String(object.metadata?.name ?? '');
  const namespace = String(object.metadata?.namespace ?? '');
  const labels = labelsOf(object);
  const secret = isCoreKind(object, 'Secret');
  const type = secret ? object.type : undefined;

  const identityNames = new Set([DEFAULT_IDENTITY_RECORD, rules.identityRecord || DEFAULT_IDENTITY_RECORD]);
  const identityLabelled = Object.entries(IDENTITY_LABELS).every(([key, value]) => labels[key] === value);
  if (
    identityLabelled ||
    (isCoreKind(object, 'ConfigMap') &&
      identityNames.has(name) &&
      (namespace === IDENTITY_NAMESPACE || namespace === ''))
  )
    return reasons.identity;

  if (
    (secret && (name.startsWith(instanceSecretPrefix) || type === instanceSecretType)) ||
    (labels[instanceLabels.component] === 'instance' && labels[instanceLabels.createdBy] === 'timoni')
  )
    return reasons.instance;

  if (
    (secret && (name.startsWith(historySecretPrefix) || type === historySecretType)) ||
    historyLabels.instance in labels
  )
    return reasons.history;
  return null;
}

/** `Secret/shop/timoni.billing: refused: ...` */
export function reservedObjectMessage(object: KubeObject, reason: string): string {
  return `${formatRef(object)}: ${reason}`;
}

/** The objects of `objects` the bundle may not apply, each with its message, in the order given. */
export function reservedObjects(
  objects: readonly KubeObject[],
  rules: ReservedObjectRules = {},
): Array<{ object: KubeObject; message: string }> {
  return objects.flatMap((object) => {
    const reason = reservedObjectReason(object, rules);
    return reason ? [{ object, message: reservedObjectMessage(object, reason) }] : [];
  });
}

/** The change a diff shows for a refused object: `failed`, no diff, its message as the error. */
export function refusedChange(object: KubeObject, message: string): ObjectChange {
  return {
    kind: object.kind,
    apiVersion: object.apiVersion,
    namespace: String(object.metadata?.namespace ?? ''),
    name: String(object.metadata?.name ?? ''),
    action: 'failed',
    diff: '',
    error: message,
  };
}

/** True for a change refused by this rule (not by the API server). */
export function isReservedRefusal(change: ObjectChange): boolean {
  return change.action === 'failed' && (change.error ?? '').includes(`: ${REFUSED} `);
}

/** A bundle holds objects it may not apply: nothing of the cluster is applied. */
export class ReservedObjectError extends Error {
  override name = 'ReservedObjectError';
  constructor(
    readonly cluster: string,
    /** Each refused object's message (`Kind/namespace/name: refused: ...`). */
    readonly refused: string[],
  ) {
    super(`cluster ${cluster}: ${refused.join('; ')}`);
  }
}
