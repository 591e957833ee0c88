// Records are checked when read. A record read back from a cluster decides what a run
// deletes (instances a bundle no longer lists, leaving clusters, orphans), what it owns, and
// what a rollback puts back; a bundle, or anyone with write rights somewhere, could plant an
// object of the same shape. So a record counts only where its writer would have put it:
//
//   - Timoni's instance record (Secret `timoni.<instance>`) only where Timoni itself writes
//     it: the Secret's name is `timoni.<the instance its data names>`, its namespace that
//     instance's namespace (a pending revision's too), its type `timoni.sh/instance`, its
//     labels Timoni's (`app.kubernetes.io/name: <instance>`, `component: instance`,
//     `created-by: timoni`) and those of the decoded instance (`bundle.timoni.sh/name`
//     agreeing both ways). Its field managers are not looked at: Timoni's CLI and a bundle
//     object both write with manager `timoni`; a bundle object of this shape is refused
//     before it is applied (reserved-objects.ts).
//   - A history (`timoni-fleet-history.<instance>`, history-store.ts) or the identity record
//     (../connect/cluster-identity.ts) only when nothing but timoni-fleet ever wrote it:
//     every `metadata.managedFields` entry's manager is `timoni-fleet` (a bundle object
//     shows `timoni`, a kubectl edit `kubectl-edit`...): otherFieldManagers, ../object.ts.
//
// What fails is ignored and reported (the message names the object and why), never acted
// on: a scan leaves it out (listInstances), a single read refuses the instance
// (readInstance), a history read refuses the history (history-store.ts).
import {
  bundleNameLabel,
  decodeInstance,
  instanceDataKey,
  instanceLabels,
  instanceSecretName,
  instanceSecretType,
  type DecodedInstanceSecret,
} from './inventory.js';
import { isRecord, type KubeObject } from '../object.js';

const where = (secret: KubeObject) => `Secret/${secret.metadata.namespace ?? ''}/${secret.metadata.name}`;

/** The labels of the instance as its data (`data.instance`) records them, not the Secret's. */
function dataLabels(secret: KubeObject): Record<string, string> {
  const data = isRecord(secret.data) ? secret.data : {};
  const encoded = data[instanceDataKey];
  if (typeof encoded !== 'string') return {};
  return decodeInstance(Buffer.from(encoded, 'base64').toString('utf8'), where(secret)).labels ?? {};
}

/**
 * Why this instance Secret is not a record Timoni would have written (the message names the
 * Secret and the reason: `Secret/team-a/timoni.billing ignored: it names instance
 * team-b/billing`), or null when it is one. `decoded` is the Secret decoded.
 */
export function instanceRecordProblem(secret: KubeObject, decoded: DecodedInstanceSecret): string | null {
  const { instance, pending } = decoded;
  const named = `${instance.namespace}/${instance.name}`;
  const ignored = (reason: string) => `${where(secret)} ignored: ${reason}`;
  const name = secret.metadata.name;
  const namespace = secret.metadata.namespace ?? '';
  if (instance.name === '' || instance.namespace === '') return ignored('it names no instance');
  if (name !== instanceSecretName(instance.name) || namespace !== instance.namespace)
    return ignored(
      `it names instance ${named}, whose record is Secret/${instance.namespace}/${instanceSecretName(instance.name)}`,
    );
  if (pending && (pending.name !== instance.name || pending.namespace !== instance.namespace))
    return ignored(`its pending revision names instance ${pending.namespace}/${pending.name}, not ${named}`);
  if (secret.type !== instanceSecretType)
    return ignored(`its type is ${JSON.stringify(secret.type ?? '')}, not ${instanceSecretType}`);
  const labels = secret.metadata.labels ?? {};
  const timoniLabels: Record<string, string> = {
    [instanceLabels.name]: instance.name,
    [instanceLabels.component]: 'instance',
    [instanceLabels.createdBy]: 'timoni',
  };
  for (const [key, value] of Object.entries(timoniLabels))
    if (labels[key] !== value) return ignored(`its label ${key} is not ${JSON.stringify(value)}`);
  const recorded = dataLabels(secret);
  if ((labels[bundleNameLabel] ?? '') !== (recorded[bundleNameLabel] ?? ''))
    return ignored(
      `its label ${bundleNameLabel} (${JSON.stringify(labels[bundleNameLabel] ?? '')}) is not the bundle its instance records (${JSON.stringify(recorded[bundleNameLabel] ?? '')})`,
    );
  for (const [key, value] of Object.entries(recorded))
    if (labels[key] !== value) return ignored(`its label ${key} is not the one its instance records`);
  return null;
}
