// What a diff shows: the unified diff (jsdiff, bounded, in `diff -u`'s format), the whole
// object of a created or deleted one, a recreated object's field changes, and the limits
// that keep one huge object from taking gigabytes or seconds; objects diffed without their
// server-set fields; and diffs against the real fleet (server-side dry-run, masked Secrets,
// a missing namespace, a change too large to show).
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { applyObject } from '../../../src/kube/ssa/apply.js';
import {
  diffObject,
  fieldChangesDiff,
  MAX_EDIT_LENGTH,
  objectDiff,
  projectOnto,
  recreateDiff,
  recreateNote,
  unifiedDiff,
  wholeObjectDiff,
} from '../../../src/kube/ssa/diff.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { clusterClient, testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet, liveDeployment, onEveryCluster, settingsConfigMap, webDeployment } from '../support.js';

/** Applies a unified diff to `from`, checking every context and removed line on the way. */
function applyPatch(from: string, patch: string): string {
  const source = from === '' ? [] : from.replace(/\n$/, '').split('\n');
  const out: string[] = [];
  let at = 0;
  const lines = patch.replace(/\n$/, '').split('\n').slice(2);
  for (const line of lines) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@$/.exec(line);
    if (header) {
      const start = Number(header[1]) - (header[2] === '0' ? 0 : 1);
      while (at < start) out.push(source[at++]!);
      continue;
    }
    const op = line[0];
    const text = line.slice(1);
    if (op === '+') out.push(text);
    else {
      if (source[at] !== text) throw new Error(`patch does not match at line ${at + 1}: ${JSON.stringify(text)}`);
      if (op === ' ') out.push(text);
      at++;
    }
  }
  while (at < source.length) out.push(source[at++]!);
  return out.length ? `${out.join('\n')}\n` : '';
}

const dir = mkdtempSync(join(tmpdir(), 'udiff-'));
function gnuDiff(a: string, b: string): string {
  writeFileSync(join(dir, 'a'), a);
  writeFileSync(join(dir, 'b'), b);
  try {
    return execFileSync('diff', ['-u', '--label', 'live', '--label', 'desired', join(dir, 'a'), join(dir, 'b')], {
      encoding: 'utf8',
    });
  } catch (error) {
    return (error as { stdout: string }).stdout;
  }
}

const changedLines = (patch: string) =>
  patch.split('\n').filter((l) => /^[+-]/.test(l) && !/^(\+\+\+|---) /.test(l)).length;

describe('unified diff', () => {
  it('is empty for equal texts', () => {
    expect(unifiedDiff('a\nb\n', 'a\nb\n')).toEqual({ diff: '' });
    // A missing final newline is read as if it were there.
    expect(unifiedDiff('a\nb', 'a\nb\n')).toEqual({ diff: '' });
  });

  it('prints hunks with three lines of context exactly as diff -u does', () => {
    const a = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const b = a.replace('line 2\n', 'line two\n').replace('line 15\n', '').replace('line 20\n', 'line 20\nline 21\n');
    const expected = gnuDiff(a, b);
    expect(unifiedDiff(a, b).diff).toBe(expected);
    expect(expected).toContain('@@ -1,5 +1,5 @@');
  });

  it('diffs from and to nothing', () => {
    expect(unifiedDiff('', 'x: 1\ny: 2\n').diff).toBe('--- live\n+++ desired\n@@ -0,0 +1,2 @@\n+x: 1\n+y: 2\n');
    expect(unifiedDiff('x: 1\n', '').diff).toBe('--- live\n+++ desired\n@@ -1 +0,0 @@\n-x: 1\n');
  });

  it('round-trips and is as short as GNU diff on random edits', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let round = 0; round < 120; round++) {
      const a = Array.from({ length: Math.floor(random() * 30) }, () => `k${Math.floor(random() * 6)}`);
      const b = a.flatMap((line) => {
        const r = random();
        if (r < 0.15) return [];
        if (r < 0.3) return [line, `n${Math.floor(random() * 6)}`];
        if (r < 0.4) return [`c${Math.floor(random() * 6)}`];
        return [line];
      });
      const from = a.length ? `${a.join('\n')}\n` : '';
      const to = b.length ? `${b.join('\n')}\n` : '';
      const patch = unifiedDiff(from, to).diff;
      if (from === to) {
        expect(patch).toBe('');
        continue;
      }
      expect(applyPatch(from, patch)).toBe(to);
      expect(changedLines(patch)).toBe(changedLines(gnuDiff(from, to)));
    }
  });
});

const lines = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix} ${i}\n`).join('');

describe('diff limits', () => {
  it('marks a diff whose edit script exceeds the limit as too large, with both line counts and no text', () => {
    expect(unifiedDiff(lines(40, 'old'), lines(40, 'new'), { maxEditLength: 50 })).toEqual({
      diff: '',
      diffTooLarge: { liveLines: 40, desiredLines: 40 },
    });
    // The same texts within the limit: 80 changed lines.
    const { diff, diffTooLarge } = unifiedDiff(lines(40, 'old'), lines(40, 'new'), { maxEditLength: 80 });
    expect(diffTooLarge).toBeUndefined();
    expect(changedLines(diff)).toBe(80);
  });

  it('shows a whole created or deleted text without an edit search, whatever its length', () => {
    const text = lines(3 * MAX_EDIT_LENGTH, 'line');
    const created = unifiedDiff('', text, { maxEditLength: 1 });
    expect(created.diffTooLarge).toBeUndefined();
    expect(created.diff.split('\n').slice(0, 4)).toEqual([
      '--- live',
      '+++ desired',
      `@@ -0,0 +1,${3 * MAX_EDIT_LENGTH} @@`,
      '+line 0',
    ]);
    const deleted = unifiedDiff(text, '', { maxEditLength: 1 });
    expect(deleted.diff.split('\n').slice(0, 4)).toEqual([
      '--- live',
      '+++ desired',
      `@@ -1,${3 * MAX_EDIT_LENGTH} +0,0 @@`,
      '-line 0',
    ]);
    expect(changedLines(deleted.diff)).toBe(3 * MAX_EDIT_LENGTH);
  });

  it('marks an object diff past the limit as too large: the objects differ, only the text is missing', () => {
    const largeConfigMap = (value: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'large', namespace: 'apps' },
      data: Object.fromEntries(Array.from({ length: MAX_EDIT_LENGTH }, (_, i) => [`key-${i}`, `${value} ${i}`])),
    });
    // 2,000 changed lines: 4,000 edits. Rendered, each object has 6 lines besides its data.
    expect(objectDiff(largeConfigMap('old'), largeConfigMap('new'))).toEqual({
      diff: '',
      diffTooLarge: { liveLines: MAX_EDIT_LENGTH + 6, desiredLines: MAX_EDIT_LENGTH + 6 },
    });
    expect(objectDiff(largeConfigMap('same'), largeConfigMap('same'))).toEqual({ diff: '' });
    // A whole object is never too large.
    expect(changedLines(wholeObjectDiff(largeConfigMap('old')))).toBe(MAX_EDIT_LENGTH + 6);
    expect(wholeObjectDiff(largeConfigMap('old'), 'deleted')).toContain(
      `@@ -1,${MAX_EDIT_LENGTH + 6} +0,0 @@\n-apiVersion: v1\n`,
    );
  });

  it('gives a recreated object too large to diff no text and no note, only the mark', () => {
    const job = (command: string): KubeObject => ({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'migrate', namespace: 'apps' },
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'run',
                image: 'busybox:1.36',
                args: Array.from({ length: MAX_EDIT_LENGTH }, (_, i) => `${command}-${i}`),
              },
            ],
          },
        },
      },
    });
    const { diff, diffTooLarge } = recreateDiff(job('one'), job('two'), ['spec.template']);
    expect(diff).toBe('');
    expect(diffTooLarge).toEqual({ liveLines: MAX_EDIT_LENGTH + 12, desiredLines: MAX_EDIT_LENGTH + 12 });
    expect(fieldChangesDiff(job('one'), job('two')).diffTooLarge).toEqual(diffTooLarge);
  });
});

const child = join(import.meta.dirname, '..', 'fixtures', 'child', 'large-diff.ts');

/** Runs one large diff in a process of its own (its peak memory is the diff's) and reads its report. */
async function largeDiff(scenario: string): Promise<Record<string, unknown> & { maxRssMiB: number; ms: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child, scenario], {
    timeout: 60_000,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as Record<string, unknown> & { maxRssMiB: number; ms: number };
}

describe('memory of large object diffs (a process each)', () => {
  // The hand-written diff took 871 MiB for the created object and 2 GiB (7 s) for the
  // 8,000 changed lines: it kept a copy of the frontier per edit step.
  it('shows a created 10,000-line object in under 200 MB', async () => {
    const run = await largeDiff('created-10000');
    expect(run).toMatchObject({ changedLines: 10_006, hunkHeader: '@@ -0,0 +1,10006 @@' });
    expect(run.maxRssMiB).toBeLessThan(200);
  });

  it('marks 8,000 changed lines as too large in under 200 MB', async () => {
    const run = await largeDiff('changed-8000');
    expect(run).toMatchObject({ diff: '', diffTooLarge: { liveLines: 8_006, desiredLines: 8_006 } });
    expect(run.maxRssMiB).toBeLessThan(200);
  });

  it('computes 900 changed lines of a 10,000-line object in under 200 MB', async () => {
    const run = await largeDiff('changed-900-of-10000');
    expect(run).toMatchObject({ changedLines: 1_800 });
    expect(run.diffTooLarge).toBeUndefined();
    expect(run.maxRssMiB).toBeLessThan(200);
  });
});

/** A Job as the API server holds it: defaults, server metadata and status added. */
function liveJob(command: string): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: 'migrate',
      namespace: 'apps',
      uid: 'u-1',
      resourceVersion: '12',
      generation: 1,
      creationTimestamp: '2025-01-01T00:00:00Z',
      labels: { app: 'migrate', 'batch.kubernetes.io/job-name': 'migrate' },
    },
    spec: {
      backoffLimit: 6,
      completions: 1,
      parallelism: 1,
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
      template: {
        metadata: { labels: { 'batch.kubernetes.io/job-name': 'migrate' } },
        spec: {
          restartPolicy: 'Never',
          dnsPolicy: 'ClusterFirst',
          terminationGracePeriodSeconds: 30,
          containers: [
            {
              name: 'run',
              image: 'busybox:1.36',
              command: ['sh', '-c', command],
              imagePullPolicy: 'IfNotPresent',
              terminationMessagePath: '/dev/termination-log',
            },
          ],
        },
      },
    },
    status: { succeeded: 1 },
  };
}

function desiredJob(command: string): KubeObject {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'migrate', namespace: 'apps', labels: { app: 'migrate' } },
    spec: {
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'run', image: 'busybox:1.36', command: ['sh', '-c', command] }],
        },
      },
    },
  };
}

describe('field changes of a recreated object', () => {
  it('keeps only the paths the desired object has, lists by position, extra live items included', () => {
    expect(projectOnto({ a: 1, b: { c: 2, d: 3 }, e: 4 }, { a: 9, b: { c: 9 } })).toEqual({ a: 1, b: { c: 2 } });
    // A key live lacks stays absent: it shows as added.
    expect(projectOnto({ a: 1 }, { a: 2, z: 3 })).toEqual({ a: 1 });
    expect(projectOnto([{ port: 8080, protocol: 'TCP', nodePort: 31000 }, { port: 9090 }], [{ port: 80 }])).toEqual([
      { port: 8080 },
      { port: 9090 },
    ]);
    // Different types: the live value as it is.
    expect(projectOnto('x', { a: 1 })).toBe('x');
    expect(projectOnto({ a: 1 }, ['x'])).toEqual({ a: 1 });
  });

  it('shows the changed command of a Job, not its defaults, server metadata or status', () => {
    const { diff } = fieldChangesDiff(liveJob('echo one'), desiredJob('echo two'));
    const changed = diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line));
    expect(changed).toEqual(['-            - echo one', '+            - echo two']);
    for (const absent of [
      'backoffLimit',
      'dnsPolicy',
      'uid',
      'resourceVersion',
      'succeeded',
      'batch.kubernetes.io/job-name',
    ])
      expect(diff).not.toContain(absent);
  });

  it('is empty when the fields the module sets are the same (only a default changed)', () => {
    expect(fieldChangesDiff(liveJob('echo one'), desiredJob('echo one'))).toEqual({ diff: '' });
  });

  it('shows a field the module adds as added', () => {
    const desired = desiredJob('echo one');
    (desired.spec as { backoffLimit?: number; ttlSecondsAfterFinished?: number }).ttlSecondsAfterFinished = 60;
    const { diff } = fieldChangesDiff(liveJob('echo one'), desired);
    expect(diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line))).toEqual([
      '+  ttlSecondsAfterFinished: 60',
    ]);
  });

  it('masks Secret values, stringData folded into data, changed ones as before/after', () => {
    const live: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'apps' },
      type: 'Opaque',
      immutable: true,
      data: { token: Buffer.from('old-pa55').toString('base64'), same: 'c2FtZQ==' },
    };
    const desired: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'apps' },
      type: 'Opaque',
      immutable: true,
      stringData: { token: 'new-pa55', same: 'same' },
    };
    const { diff } = fieldChangesDiff(live, desired);
    expect(diff).toContain('-  token: "*** (before)"');
    expect(diff).toContain('+  token: "*** (after)"');
    expect(diff).not.toMatch(/[-+]\s+same:/);
    for (const value of ['old-pa55', 'new-pa55', Buffer.from('old-pa55').toString('base64'), 'c2FtZQ=='])
      expect(diff).not.toContain(value);
  });

  it('ends with a note naming the immutable fields and saying the object is recreated', () => {
    expect(recreateNote(['spec.template'], false)).toBe(
      '# recreated: immutable field spec.template changes; the object is deleted and created again\n',
    );
    expect(recreateNote(['spec.selector', 'spec.template'], true)).toBe(
      '# recreated: immutable fields spec.selector, spec.template change; the object was deleted and created again\n',
    );
    expect(recreateNote([], false)).toBe(
      '# recreated: an immutable field changes; the object is deleted and created again\n',
    );
    const { diff, diffTooLarge } = recreateDiff(liveJob('echo one'), desiredJob('echo two'), ['spec.template']);
    expect(diffTooLarge).toBeUndefined();
    expect(diff.startsWith('--- live\n+++ desired\n@@ ')).toBe(true);
    expect(
      diff.endsWith(
        '+            - echo two\n           image: busybox:1.36\n           name: run\n       restartPolicy: Never\n# recreated: immutable field spec.template changes; the object is deleted and created again\n',
      ),
    ).toBe(true);
  });
});

describe('diff of objects', () => {
  it('shows a changed field as a unified diff of sorted YAML, without server metadata', () => {
    const desired = structuredClone(liveDeployment);
    (desired.spec as { replicas: number }).replicas = 3;
    desired.metadata.resourceVersion = '813';
    const { diff } = objectDiff(liveDeployment, desired);
    expect(diff).toBe(
      [
        '--- live',
        '+++ desired',
        '@@ -6,7 +6,7 @@',
        '   name: web',
        '   namespace: apps',
        ' spec:',
        '-  replicas: 1',
        '+  replicas: 3',
        '   template:',
        '     spec:',
        '       containers:',
        '',
      ].join('\n'),
    );
    expect(diff).not.toContain('resourceVersion');
    expect(diff).not.toContain('managedFields');
  });

  it('is empty when only server-set fields differ', () => {
    const other = structuredClone(liveDeployment);
    other.metadata.resourceVersion = '999';
    other.metadata.managedFields = [];
    other.status = { readyReplicas: 0 };
    expect(objectDiff(liveDeployment, other)).toEqual({ diff: '' });
  });

  it('shows a created object whole', () => {
    const diff = wholeObjectDiff({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'n' },
      data: { b: '2', a: '1' },
    });
    expect(diff).toBe(
      '--- live\n+++ desired\n@@ -0,0 +1,8 @@\n+apiVersion: v1\n+data:\n+  a: "1"\n+  b: "2"\n+kind: ConfigMap\n+metadata:\n+  name: c\n+  namespace: n\n',
    );
  });
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('apply and diff on the fleet', () => {
  it('shows a Secret change masked, and never a value', async () => {
    const { clusters, registered } = engineFleet();
    const values = ['first-pa55word', 'second-pa55word', 'api-key-0001', 'api-key-0002'];
    const outputs: string[] = [];
    await onEveryCluster(clusters, async (cluster, index) => {
      const ns = (await testNamespace(index, 'kube-secret')).name;
      const secret = (password: string, apiKey: string, stringData = false): KubeObject => ({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'creds', namespace: ns },
        type: 'Opaque',
        ...(stringData
          ? { stringData: { password, apiKey } }
          : { data: { password: b64(password), apiKey: b64(apiKey) } }),
      });
      const created = await diffObject(cluster, secret('first-pa55word', 'api-key-0001'));
      outputs.push(JSON.stringify(created));
      expect(created.action).toBe('created');
      expect(created.diff).toContain('+  password: "***"');
      expect((await applyObject(cluster, secret('first-pa55word', 'api-key-0001'))).action).toBe('created');

      const same = await diffObject(cluster, secret('first-pa55word', 'api-key-0001', true));
      outputs.push(JSON.stringify(same));
      expect(same.action).toBe('unchanged');

      const changed = await diffObject(cluster, secret('second-pa55word', 'api-key-0001'));
      outputs.push(JSON.stringify(changed));
      expect(changed.action).toBe('configured');
      expect(changed.diff.split('\n').filter((line) => /^[-+] /.test(line))).toEqual([
        '-  password: "*** (before)"',
        '+  password: "*** (after)"',
      ]);
      expect(changed.diff).toContain('   apiKey: "***"');

      const viaStringData = await diffObject(cluster, secret('first-pa55word', 'api-key-0002', true));
      outputs.push(JSON.stringify(viaStringData));
      expect(viaStringData.action).toBe('configured');
      expect(viaStringData.diff).toContain('-  apiKey: "*** (before)"');
    });
    const everything = outputs.join('\n');
    for (const value of values) {
      expect(everything).not.toContain(value);
      expect(everything).not.toContain(b64(value));
    }
    expect(registered.some((value) => values.includes(value))).toBe(false);
  });

  it('shows every object as created in a missing namespace without asking the server', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[2]!;
    const ns = `kube-missing-${Date.now().toString(36)}`;
    const change = await diffObject(cluster, webDeployment(ns, 2), { namespaceExists: false });
    expect(change.action).toBe('created');
    expect(change.diff).toContain('+  replicas: 2');
    expect(await clusterClient(2).getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: ns })).toBeNull();
    const clusterScoped = await diffObject(
      cluster,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: `r-${ns}`, namespace: ns },
        rules: [],
      },
      { namespaceExists: false },
    );
    expect(clusterScoped.namespace).toBe('');
    expect(clusterScoped.diff).not.toContain('namespace:');
  });

  it('marks a change too large to diff as configured without its text, and applies it', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const ns = (await testNamespace(0, 'kube-large')).name;
    // As many keys as the edit limit, all changed: twice the edits the diff computes.
    const large = (value: string) =>
      settingsConfigMap(
        ns,
        Object.fromEntries(Array.from({ length: MAX_EDIT_LENGTH }, (_, i) => [`key-${i}`, `${value} ${i}`])),
      );
    expect((await applyObject(cluster, large('old'))).action).toBe('created');
    // Rendered, the ConfigMap has 8 lines besides its data.
    const change = await diffObject(cluster, large('new'));
    expect(change).toEqual({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      namespace: ns,
      name: 'settings',
      action: 'configured',
      diff: '',
      diffTooLarge: { liveLines: MAX_EDIT_LENGTH + 8, desiredLines: MAX_EDIT_LENGTH + 8 },
    });
    expect((await applyObject(cluster, large('new'))).action).toBe('configured');
    expect(await diffObject(cluster, large('new'))).toMatchObject({ action: 'unchanged', diff: '' });
  });
});
