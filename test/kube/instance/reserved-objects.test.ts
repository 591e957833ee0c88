import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../src/kube/object.js';
import {
  isReservedRefusal,
  refusedChange,
  reservedObjectMessage,
  reservedObjectReason,
  reservedObjects,
} from '../../../src/kube/instance/reserved-objects.js';

const object = (kind: string, namespace: string, name: string, extra: Partial<KubeObject> = {}): KubeObject => ({
  apiVersion: kind === 'Deployment' ? 'apps/v1' : 'v1',
  kind,
  ...extra,
  metadata: { name, namespace, ...(extra.metadata ?? {}) },
});

describe('reservedObjectReason', () => {
  it("refuses Timoni's instance record by name, type or labels, in any namespace", () => {
    expect(reservedObjectReason(object('Secret', 'shop', 'timoni.billing'))).toMatch(/Timoni instance record/);
    expect(reservedObjectReason(object('Secret', 'other', 'innocent', { type: 'timoni.sh/instance' }))).toMatch(
      /Timoni instance record/,
    );
    const labels = { 'app.kubernetes.io/component': 'instance', 'app.kubernetes.io/created-by': 'timoni' };
    expect(reservedObjectReason(object('Secret', 'a', 'x', { metadata: { name: 'x', labels } }))).toMatch(
      /Timoni instance record/,
    );
    expect(reservedObjectReason(object('ConfigMap', 'a', 'x', { metadata: { name: 'x', labels } }))).toMatch(
      /Timoni instance record/,
    );
  });

  it('refuses the history by name, type or its instance label', () => {
    expect(reservedObjectReason(object('Secret', 'a', 'timoni-fleet-history.web'))).toMatch(/instance history/);
    expect(reservedObjectReason(object('Secret', 'a', 'h', { type: 'timoni-fleet.io/history' }))).toMatch(
      /instance history/,
    );
    expect(
      reservedObjectReason(
        object('ConfigMap', 'a', 'h', { metadata: { name: 'h', labels: { 'timoni-fleet.io/instance': 'web' } } }),
      ),
    ).toMatch(/instance history/);
  });

  it('refuses the identity record by its default and configured name in kube-system, and by its labels', () => {
    expect(reservedObjectReason(object('ConfigMap', 'kube-system', 'timoni-fleet-identity'))).toMatch(
      /cluster identity record/,
    );
    expect(reservedObjectReason(object('ConfigMap', 'kube-system', 'ours'), { identityRecord: 'ours' })).toMatch(
      /cluster identity record/,
    );
    // The default name stays reserved when another is configured (another run may read it).
    expect(
      reservedObjectReason(object('ConfigMap', 'kube-system', 'timoni-fleet-identity'), { identityRecord: 'ours' }),
    ).toMatch(/cluster identity record/);
    const labels = {
      'app.kubernetes.io/managed-by': 'timoni-fleet',
      'app.kubernetes.io/component': 'cluster-identity',
    };
    expect(reservedObjectReason(object('ConfigMap', 'apps', 'x', { metadata: { name: 'x', labels } }))).toMatch(
      /cluster identity record/,
    );
  });

  it('lets ordinary objects through, including look-alike names elsewhere', () => {
    expect(reservedObjectReason(object('ConfigMap', 'shop', 'timoni.billing'))).toBeNull();
    expect(reservedObjectReason(object('ConfigMap', 'apps', 'timoni-fleet-identity'))).toBeNull();
    expect(reservedObjectReason(object('Deployment', 'apps', 'web'))).toBeNull();
    expect(
      reservedObjectReason(
        object('Secret', 'apps', 'web', {
          metadata: { name: 'web', labels: { 'app.kubernetes.io/managed-by': 'timoni-fleet' } },
        }),
      ),
    ).toBeNull();
    expect(
      reservedObjectReason(
        object('Secret', 'apps', 'web', {
          metadata: { name: 'web', labels: { 'app.kubernetes.io/component': 'instance' } },
        }),
      ),
    ).toBeNull();
  });
});

describe('the refusal', () => {
  it('names the object and the reason, and is told apart from a server refusal', () => {
    const secret = object('Secret', 'shop', 'timoni.billing');
    const [found] = reservedObjects([object('ConfigMap', 'shop', 'web'), secret]);
    expect(found?.message).toBe(
      'Secret/shop/timoni.billing: refused: a bundle may not apply an object that has the name or labels of a Timoni instance record, which timoni-fleet and Timoni read back',
    );
    const change = refusedChange(secret, found!.message);
    expect(change).toMatchObject({
      kind: 'Secret',
      namespace: 'shop',
      name: 'timoni.billing',
      action: 'failed',
      diff: '',
    });
    expect(isReservedRefusal(change)).toBe(true);
    expect(isReservedRefusal({ ...change, error: 'Secret/shop/x: admission webhook denied' })).toBe(false);
    expect(reservedObjectMessage(secret, 'why')).toBe('Secret/shop/timoni.billing: why');
  });
});
