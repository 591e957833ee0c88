// The status Markdown (job summary and status issue): one row per cluster x instance, text
// from clusters escaped, secrets masked, and within a size limit the deployed rows left out
// first, with a line saying how many. The run through the action is test/e2e/status.test.ts.
import { describe, expect, it } from 'vitest';
import { renderStatusMarkdown, statusMarker } from '../../src/action/status-report.js';
import { countStates, type FleetState, type InstanceStateRow } from '../../src/fleet/instance-state.js';

const module = { url: 'oci://registry.example/modules/webapp', version: '1.4.0', digest: `sha256:${'ab'.repeat(32)}` };

function row(cluster: string, state: InstanceStateRow['state'], reason = ''): InstanceStateRow {
  return {
    cluster,
    group: 'staging',
    instance: 'frontend',
    namespace: 'shop',
    state,
    module: state === 'not installed' || state === 'unknown' ? null : module,
    desired: state === 'unknown' ? null : module,
    lastApplied: state === 'not installed' || state === 'unknown' ? null : '2026-01-02T03:04:05Z',
    readiness:
      state === 'not installed' || state === 'unknown'
        ? null
        : { ready: state === 'failed' ? 1 : 2, total: 2, notReady: [] },
    reason,
  };
}

function fleet(rows: InstanceStateRow[]): FleetState {
  return { format: 1, bundle: 'shop', instances: rows, counts: countStates(rows) };
}

const context = {
  commitSha: 'a'.repeat(40),
  repository: 'acme/shop',
  runUrl: 'https://github.com/acme/shop/actions/runs/1',
  secrets: ['s3cr3t-value'],
};

describe('renderStatusMarkdown', () => {
  it('shows what does not show in a group or a reason escaped (soft hyphen, Hangul filler, a tag)', () => {
    const hidden = { ...row('one', 'stale', 'drift\u3164ed'), group: 'stag\u00ADing\u{E0041}' };
    const text = renderStatusMarkdown(fleet([hidden]), context);
    for (const character of ['\u00AD', '\u3164', '\u{E0041}']) expect(text).not.toContain(character);
    expect(text).toContain('| one | stag&#92;u00ADing&#92;u{E0041} |');
    expect(text).toContain('drift&#92;u3164ed');
  });

  it('one row per cluster x instance, with the counts, the short digest and the reason escaped and masked', () => {
    const text = renderStatusMarkdown(
      fleet([
        row('one', 'deployed'),
        row('two', 'stale', 'drifted: ConfigMap/shop/frontend | <b>s3cr3t-value</b>'),
        row('three', 'unknown', 'cannot reach cluster three'),
      ]),
      context,
    );
    expect(text).toContain('**1 deployed** · **1 stale** · 0 not installed · 0 failed · **1 unknown**');
    expect(text).toContain(
      '| one | staging | <code>frontend</code> | shop | ✅ deployed | 1.4.0 | <code>sha256&#58;abababababab</code> | 2026-01-02T03&#58;04&#58;05Z | 2/2 | – |',
    );
    expect(text).toContain(
      '| three | staging | <code>frontend</code> | shop | ❔ unknown | – | – | – | – | cannot reach cluster three |',
    );
    expect(text).not.toContain('s3cr3t-value');
    expect(text).not.toContain('<b>');
    expect(
      text
        .split('\n')
        .filter((line) => line.startsWith('| two '))[0]
        ?.split(' | '),
    ).toHaveLength(10);
  });

  it('within a limit, leaves out deployed rows first and says how many', () => {
    const rows = [
      ...Array.from({ length: 400 }, (_, i) => row(`ok-${i}`, 'deployed')),
      row('bad', 'failed', 'not ready: Deployment/shop/frontend InProgress'),
    ];
    const whole = renderStatusMarkdown(fleet(rows), context);
    const cut = renderStatusMarkdown(fleet(rows), context, { maxLength: 10_000 });
    expect(whole.length).toBeGreaterThan(10_000);
    expect(cut.length).toBeLessThanOrEqual(10_000);
    expect(cut).toContain('| bad |');
    expect(cut).not.toContain('| ok-0 |');
    expect(cut).toContain('_400 of 401 rows left out (400 deployed) ');
  });

  it('the marker names the bundle and cannot close the HTML comment', () => {
    expect(statusMarker('shop', [])).toBe('<!-- timoni-fleet-status: shop -->');
    expect(statusMarker('', ['a-->b.cue'])).toBe('<!-- timoni-fleet-status: a- -b.cue -->');
  });
});
