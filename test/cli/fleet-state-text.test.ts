// `status -o text`: the state table in kubectl's style and the counts line.
import { describe, expect, it } from 'vitest';
import { fleetStateTable, shortDigest, stateCounts } from '../../src/cli/fleet-state-text.js';
import { countStates, type InstanceStateRow } from '../../src/fleet/instance-state.js';

const rows: InstanceStateRow[] = [
  {
    cluster: 'staging-1',
    group: 'staging',
    instance: 'web',
    namespace: 'apps',
    state: 'deployed',
    module: { url: 'oci://r/m', version: '1.0.0', digest: `sha256:${'0'.repeat(64)}` },
    desired: null,
    lastApplied: '2026-01-02T03:04:05Z',
    readiness: { ready: 3, total: 3, notReady: [] },
    reason: '',
  },
  {
    cluster: 'gone',
    group: 'production',
    instance: '',
    namespace: '',
    state: 'unknown',
    module: null,
    desired: null,
    lastApplied: null,
    readiness: null,
    reason: 'cannot reach cluster gone:\n  connect ECONNREFUSED',
  },
];

describe('the state table', () => {
  it('pads the columns, puts - for what is not known, and keeps each reason on one line', () => {
    const text = fleetStateTable({ format: 1, bundle: 'apps', instances: rows, counts: countStates(rows) });
    expect(text.split('\n')).toEqual([
      'CLUSTER     GROUP        INSTANCE   NAMESPACE   STATE      MODULE   DIGEST                LAST APPLIED           READY   REASON',
      'staging-1   staging      web        apps        deployed   1.0.0    sha256:000000000000   2026-01-02T03:04:05Z   3/3     -',
      'gone        production   -          -           unknown    -        -                     -                      -       cannot reach cluster gone: connect ECONNREFUSED',
      '',
    ]);
    expect(stateCounts({ format: 1, bundle: 'apps', instances: rows, counts: countStates(rows) })).toBe(
      '1 deployed, 0 stale, 0 not installed, 0 failed, 1 unknown',
    );
    expect(shortDigest('unknown')).toBe('unknown');
  });
});
