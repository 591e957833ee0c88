import { describe, expect, it } from 'vitest';
import { decodeInstanceSecret, instanceSecret, type InstanceRecord } from '../../../src/kube/instance/inventory.js';
import { instanceRecordProblem } from '../../../src/kube/instance/record-checks.js';
import { historySecret, historyTrustProblem } from '../../../src/kube/instance/history-store.js';
import { otherFieldManagers, type KubeObject } from '../../../src/kube/object.js';

const billing: InstanceRecord = {
  name: 'billing',
  namespace: 'team-b',
  labels: { 'bundle.timoni.sh/name': 'bundle-b' },
  module: { name: 'webapp', repository: 'oci://r/webapp', version: '1.0.0', digest: 'sha256:1' },
  values: '{}',
  inventory: { entries: [{ id: 'team-b_billing__ConfigMap', v: 'v1' }] },
};

const problem = (secret: KubeObject) => instanceRecordProblem(secret, decodeInstanceSecret(secret));

describe('instanceRecordProblem', () => {
  it('accepts the record as Timoni writes it', () => {
    expect(problem(instanceSecret(billing))).toBeNull();
    expect(problem(instanceSecret({ ...billing, labels: undefined }))).toBeNull();
  });

  it('ignores a record in another namespace, or under another name, than the instance it names', () => {
    const moved = instanceSecret(billing);
    moved.metadata.namespace = 'team-a';
    moved.metadata.labels = { ...moved.metadata.labels, 'bundle.timoni.sh/name': 'bundle-a' };
    expect(problem(moved)).toBe(
      'Secret/team-a/timoni.billing ignored: it names instance team-b/billing, whose record is Secret/team-b/timoni.billing',
    );
    const renamed = instanceSecret(billing);
    renamed.metadata.name = 'timoni.other';
    expect(problem(renamed)).toMatch(/^Secret\/team-b\/timoni.other ignored: it names instance team-b\/billing/);
  });

  it("ignores one whose labels or type are not Timoni's or disagree with the instance", () => {
    const relabelled = instanceSecret(billing);
    relabelled.metadata.labels = { ...relabelled.metadata.labels, 'bundle.timoni.sh/name': 'bundle-a' };
    expect(problem(relabelled)).toMatch(
      /label bundle.timoni.sh\/name \("bundle-a"\) is not the bundle its instance records \("bundle-b"\)/,
    );
    const typed = { ...instanceSecret(billing), type: 'Opaque' };
    expect(problem(typed)).toMatch(/its type is "Opaque", not timoni.sh\/instance/);
    const unnamed = instanceSecret(billing);
    unnamed.metadata.labels = { ...unnamed.metadata.labels, 'app.kubernetes.io/name': 'x' };
    expect(problem(unnamed)).toMatch(/its label app.kubernetes.io\/name is not "billing"/);
  });
});

describe('who wrote a record only timoni-fleet writes', () => {
  const written = (...managers: string[]): KubeObject => {
    const secret = historySecret('web', 'apps', []);
    secret.metadata.managedFields = managers.map((manager) => ({ manager, operation: 'Apply' }));
    return secret;
  };

  it('trusts a history only timoni-fleet wrote', () => {
    expect(historyTrustProblem(written('timoni-fleet'))).toBeNull();
    expect(historyTrustProblem(written('timoni-fleet', 'timoni'))).toBe(
      'written by field manager(s) timoni, not only timoni-fleet',
    );
    expect(historyTrustProblem(written())).toBe('written by field manager(s) (none recorded), not only timoni-fleet');
    expect(historyTrustProblem({ ...written('timoni-fleet'), type: 'Opaque' })).toMatch(/its type is "Opaque"/);
  });

  it('lists the other managers once, sorted', () => {
    expect(otherFieldManagers(written('timoni-fleet', 'kubectl-edit', 'timoni', 'timoni'), 'timoni-fleet')).toEqual([
      'kubectl-edit',
      'timoni',
    ]);
  });
});
