// End to end: instance history through the CLI as a user runs it (`node dist/cli/index.js`) on
// the local fleet. A module of this file's own is pushed to a registry of its own as 1.0.0 and
// 1.1.0; one instance is applied three times to one cluster (1.0.0, then its values changed,
// then 1.1.0), each time with a sentinel value of its own. Then `history` lists three
// revisions newest first with the right versions and digests (text and -o json), the newest
// one current; no sentinel appears in any output; `status` still sees one instance (the
// history Secret is not taken for one); `--history 2` trims to two; an apply that changes
// nothing adds no revision; `--history 0` writes none.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { pushTimoniModule, startRegistry } from '../harness/registry/index.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const suffix = randomBytes(4).toString('hex');
const bundleName = `history-${suffix}`;
const namespace = `history-${suffix}`;
const record = `timoni-fleet-identity-history-${suffix}`;
const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
const CLUSTER = 'h-1';
/** Values nobody else writes: none may appear in what `history` prints. */
const sentinels = [1, 2, 3, 4].map((n) => `sentinel-${suffix}-${n}`);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;
let moduleUrl: string;
const digests: Record<string, string> = {};

function bundle(version: string, message: string): string {
  return `bundle: {
	apiVersion: "v1alpha1"
	name:       "${bundleName}"
	instances: web: {
		module: url:     "${moduleUrl}"
		module: version: "${version}"
		namespace: "${namespace}"
		values: {
			message: "${message}"
			test: enabled: false
		}
	}
}
`;
}

function timoniFleet(...args: string[]): Promise<Run> {
  const [command = '', ...rest] = args;
  const argv = [
    cli,
    command,
    '-f',
    join(dir, 'bundle.cue'),
    '-r',
    join(dir, 'runtime.cue'),
    '--kubeconfig',
    testFleet().kubeconfigPath,
    '--cluster-identity-record',
    record,
    ...rest,
  ];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { cwd: repositoryRoot, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

async function apply(version: string, message: string, ...flags: string[]): Promise<void> {
  writeFileSync(join(dir, 'bundle.cue'), bundle(version, message));
  const result = await timoniFleet('apply', '--wait=false', '--cluster-identity', 'record', ...flags);
  expect(result.code, result.stderr).toBe(0);
}

interface HistoryJson {
  clusters: Array<{
    name: string;
    bundle: string;
    error: string | null;
    instances: Array<{
      name: string;
      namespace: string;
      installed: boolean;
      revisions: Array<{
        revision: number;
        module: { url: string; version: string; digest: string };
        current: boolean;
      }>;
    }>;
  }>;
}

beforeAll(async () => {
  dir = scratchDir('cli-history');
  // A registry of this file's own: the fleet `npm test` starts has none (the one of `npm run fleet` is not always there).
  const registry = await startRegistry({ auth: 'anonymous' });
  for (const tag of ['1.0.0', '1.1.0']) {
    const pushed = await pushTimoniModule({
      registry: registry.url,
      repository: `modules/history-${suffix}`,
      tag,
      moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
    });
    moduleUrl = pushed.url;
    digests[tag] = pushed.digest;
  }
  writeFileSync(
    join(dir, 'runtime.cue'),
    `runtime: {
	apiVersion: "v1alpha1"
	name:       "history"
	clusters: "${CLUSTER}": {group: "staging", kubeContext: "fleet-2"}
}
`,
  );
  return async () => {
    await registry.stop();
    await clusterClient(1)
      .delete({ apiVersion: 'v1', kind: 'Namespace', name: namespace })
      .catch(() => undefined);
    await clusterClient(1)
      .delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: record })
      .catch(() => undefined);
  };
}, 60_000);

describe('timoni-fleet history', () => {
  it('lists three applies newest first, the newest current, and never a value', async () => {
    await apply('1.0.0', sentinels[0]!);
    await apply('1.0.0', sentinels[1]!);
    await apply('1.1.0', sentinels[2]!);

    const text = await timoniFleet('history');
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(
      /^CLUSTER\s+INSTANCE\s+REVISION\s+APPLIED\s+MODULE\s+DIGEST\s+COMMIT\s+STATUS\s+DESCRIPTION$/,
    );
    const rows = lines.slice(1).map((line) => line.split(/\s+/));
    expect(rows.map((row) => [row[0], row[1], row[2], row[4], row[5], row[6], row[7], row[8]])).toEqual([
      [CLUSTER, `${namespace}/web`, '3', `${moduleUrl}:1.1.0`, digests['1.1.0']!.slice(0, 19), '-', 'current', 'apply'],
      [
        CLUSTER,
        `${namespace}/web`,
        '2',
        `${moduleUrl}:1.0.0`,
        digests['1.0.0']!.slice(0, 19),
        '-',
        'superseded',
        'apply',
      ],
      [
        CLUSTER,
        `${namespace}/web`,
        '1',
        `${moduleUrl}:1.0.0`,
        digests['1.0.0']!.slice(0, 19),
        '-',
        'superseded',
        'apply',
      ],
    ]);
    expect(rows[0]![3]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

    const json = await timoniFleet('history', '-o', 'json', '--instance', 'web');
    expect(json.code, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout) as HistoryJson;
    expect(parsed.clusters.map((c) => [c.name, c.bundle, c.error])).toEqual([[CLUSTER, bundleName, null]]);
    const instance = parsed.clusters[0]!.instances[0]!;
    expect(instance).toMatchObject({ name: 'web', namespace, installed: true });
    expect(instance.revisions.map((r) => [r.revision, r.module.version, r.module.digest, r.current])).toEqual([
      [3, '1.1.0', digests['1.1.0'], true],
      [2, '1.0.0', digests['1.0.0'], false],
      [1, '1.0.0', digests['1.0.0'], false],
    ]);

    for (const output of [text.stdout, text.stderr, json.stdout, json.stderr])
      for (const sentinel of sentinels) expect(output).not.toContain(sentinel);

    // The history Secret is no instance to status (nor to the scan of unlisted instances, which an apply with prune ran above).
    const status = await timoniFleet('status', '-o', 'json');
    // Exit 1 here: the Deployment is not ready (no kubelet, --wait=false); what matters is the one instance.
    expect(status.code, status.stderr).toBeLessThan(2);
    expect(
      (JSON.parse(status.stdout) as { instances: Array<{ instance: string; state: string }> }).instances.map((row) => [
        row.instance,
        row.state,
      ]),
    ).toEqual([['web', expect.any(String)]]);

    // An apply that changes nothing adds no revision; --history 2 keeps two.
    await apply('1.1.0', sentinels[2]!);
    await apply('1.0.0', sentinels[3]!, '--history', '2');
    const trimmed = JSON.parse((await timoniFleet('history', '-o', 'json')).stdout) as HistoryJson;
    expect(trimmed.clusters[0]!.instances[0]!.revisions.map((r) => [r.revision, r.module.version, r.current])).toEqual([
      [4, '1.0.0', true],
      [3, '1.1.0', false],
    ]);

    // --history 0 writes nothing: the kept revisions stay, and none is current any more.
    await apply('1.1.0', sentinels[0]!, '--history', '0');
    const untouched = JSON.parse((await timoniFleet('history', '-o', 'json')).stdout) as HistoryJson;
    expect(untouched.clusters[0]!.instances[0]!.revisions.map((r) => [r.revision, r.current])).toEqual([
      [4, false],
      [3, false],
    ]);

    const unknown = await timoniFleet('history', '--instance', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--instance nope');
  });
});
