// End to end, as an attacker would try it through the CLI (`node dist/cli/index.js`) on the
// local fleet: the records timoni-fleet and Timoni read back from a cluster (Timoni's
// instance Secret, the instance history, the cluster identity record) cannot be written by
// what a bundle applies, and are checked when read.
//
// Two teams share the fleet: team B's bundle installs instance `billing` (webapp: ConfigMap,
// Deployment...) in its namespace; team A's bundle installs `front` (a module of this file's
// own whose values may add raw objects) in another. Then:
//   - team A's bundle adds objects shaped like each record (an instance record naming team
//     B's instance, a history Secret, the identity ConfigMap): the diff shows each refused
//     with its reason, and the apply applies nothing to the first cluster and reaches no other;
//   - a forged instance record put in team A's namespace with a client (field manager
//     `timoni`, as a bundle object would be), naming team B's instance and carrying team A's
//     bundle label, then an apply of team A's bundle, which does not list that instance: team
//     B's objects and record stay, with the same uids, and the log names the ignored record;
//   - a history Secret rewritten by field manager `timoni` with a forged revision: `rollback
//     --to` refuses it with the reason and applies nothing;
//   - an identity record written by another manager: not trusted by a check (the diff goes
//     on, saying so), and an apply that records identities refuses the cluster, naming the
//     ConfigMap and its manager, without overwriting it.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { pushTimoniModule, startRegistry } from '../harness/registry/index.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const suffix = randomBytes(4).toString('hex');
const bundleA = `rec-a-${suffix}`;
const bundleB = `rec-b-${suffix}`;
const nsA = `rec-a-${suffix}`;
const nsB = `rec-b-${suffix}`;
const record = `timoni-fleet-identity-rec-${suffix}`;
const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
const FIRST = 'rec-1';
const SECOND = 'rec-2';
/** rec-1 is fleet-2 (clusterClient(1)), rec-2 fleet-3 (clusterClient(2)). */
const first = () => clusterClient(1);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

interface ChangeSetJson {
  clusters: Array<{
    name: string;
    status: string;
    error: { step: string; message: string; object?: string } | null;
    instances: Array<{
      name: string;
      changes: Array<{ kind: string; namespace: string; name: string; action: string; error?: string }>;
    }>;
  }>;
}

let dir: string;
/** Team A's module, pushed to a registry of this file's own: a rollback pulls a revision's module again by its digest. */
let moduleUrl: string;

const RECORDS_MODULE = {
  'cue.mod/module.cue': `module: "example.com/records"\nlanguage: version: "v0.17.1"\n`,
  'values.cue': `package main\n\nvalues: {\n\tmessage: string | *"hello"\n\textra: [string]: {...}\n}\n`,
  'timoni.cue': `package main

values: {
	message: string
	extra: [string]: {...}
}

timoni: {
	apiVersion: "v1alpha1"
	instance: {
		name:      string @tag(name)
		namespace: string @tag(namespace)
		mv:        string @tag(mv, var=moduleVersion)
		kv:        string @tag(kv, var=kubeVersion)
	}
	apply: app: [
		{
			apiVersion: "v1"
			kind:       "ConfigMap"
			metadata: {name: timoni.instance.name, namespace: timoni.instance.namespace}
			data: message: values.message
		},
		for _, obj in values.extra {obj},
	]
}
`,
};

function bundleOfA(message: string, extra = ''): string {
  return `bundle: {
	apiVersion: "v1alpha1"
	name:       "${bundleA}"
	instances: front: {
		module: url:     "${moduleUrl}"
		module: version: "1.0.0"
		namespace: "${nsA}"
		values: {
			message: "${message}"
			extra: {${extra}}
		}
	}
}
`;
}

const bundleOfB = () => `bundle: {
	apiVersion: "v1alpha1"
	name:       "${bundleB}"
	instances: billing: {
		module: url: "file://${join(dir, 'webapp')}"
		namespace: "${nsB}"
		values: {
			message: "team b"
			test: enabled: false
		}
	}
}
`;

/** Timoni's record of team B's instance, as a forger writes it: `data.instance` naming billing in team B's namespace. */
function forgedInstanceData(): string {
  const entries = [
    { id: `${nsB}_billing__ConfigMap`, v: 'v1' },
    { id: `${nsB}_billing_apps_Deployment`, v: 'v1' },
  ];
  return Buffer.from(
    JSON.stringify({
      kind: 'Instance',
      apiVersion: 'timoni.sh/v1alpha1',
      metadata: { name: 'billing', namespace: nsB, labels: { 'bundle.timoni.sh/name': bundleA } },
      module: { name: 'example.com/webapp', repository: 'file', version: '0.0.0', digest: 'unknown' },
      values: '{}',
      inventory: { entries },
    }),
  ).toString('base64');
}

const timoniLabels = (instance: string, bundle: string) => ({
  'app.kubernetes.io/name': instance,
  'app.kubernetes.io/component': 'instance',
  'app.kubernetes.io/created-by': 'timoni',
  'bundle.timoni.sh/name': bundle,
});

function timoniFleet(args: string[], bundle: string): Promise<Run> {
  const file = join(dir, `${bundle}.cue`);
  const [command = '', ...rest] = args;
  const argv = [
    cli,
    command,
    '-f',
    file,
    '-r',
    join(dir, 'runtime.cue'),
    '--kubeconfig',
    testFleet().kubeconfigPath,
    '--cluster-identity-record',
    record,
    ...(command === 'diff' ? [] : ['--wait=false']),
    ...rest,
  ];
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      argv,
      { cwd: dir, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

function writeBundle(name: string, text: string): void {
  writeFileSync(join(dir, `${name}.cue`), text);
}

async function uidsOfB(client = first()): Promise<Record<string, string | undefined>> {
  const uid = async (apiVersion: string, kind: string, name: string) =>
    (await client.getOrNull({ apiVersion, kind, namespace: nsB, name }))?.metadata.uid;
  return {
    configMap: await uid('v1', 'ConfigMap', 'billing'),
    deployment: await uid('apps/v1', 'Deployment', 'billing'),
    record: await uid('v1', 'Secret', 'timoni.billing'),
  };
}

async function messageOfA(client = first()): Promise<string | undefined> {
  const map = await client.getOrNull<KubeObject & { data?: Record<string, string> }>({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: nsA,
    name: 'front',
  });
  return map?.data?.message;
}

beforeAll(async () => {
  dir = scratchDir('cli-records');
  for (const [path, text] of Object.entries(RECORDS_MODULE)) {
    mkdirSync(join(dir, 'records', path, '..'), { recursive: true });
    writeFileSync(join(dir, 'records', path), text);
  }
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), join(dir, 'webapp'), { recursive: true });
  const registry = await startRegistry({ auth: 'anonymous' });
  moduleUrl = (
    await pushTimoniModule({
      registry: registry.url,
      repository: `modules/records-${suffix}`,
      tag: '1.0.0',
      moduleDir: join(dir, 'records'),
    })
  ).url;
  writeFileSync(
    join(dir, 'runtime.cue'),
    `runtime: {
	apiVersion: "v1alpha1"
	name:       "records"
	clusters: {
		"${FIRST}": {group: "staging", kubeContext: "fleet-2"}
		"${SECOND}": {group: "production", kubeContext: "fleet-3"}
	}
}
`,
  );
  writeBundle(bundleB, bundleOfB());
  const installed = await timoniFleet(['apply'], bundleB);
  expect(installed.code, installed.stderr).toBe(0);
  return async () => {
    await registry.stop();
    for (const client of [clusterClient(1), clusterClient(2)]) {
      for (const ns of [nsA, nsB])
        await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns }).catch(() => undefined);
      await client
        .delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: record })
        .catch(() => undefined);
    }
  };
}, 120_000);

describe('records read back cannot be written by a bundle (reserved objects)', () => {
  const extra = `
			record: {
				apiVersion: "v1", kind: "Secret", type: "timoni.sh/instance"
				metadata: {name: "timoni.billing", namespace: "${nsA}", labels: {
					"app.kubernetes.io/name": "billing", "app.kubernetes.io/component": "instance",
					"app.kubernetes.io/created-by": "timoni", "bundle.timoni.sh/name": "${bundleA}"}}
				data: instance: "${'$'}{FORGED}"
			}
			history: {
				apiVersion: "v1", kind: "Secret", type: "timoni-fleet.io/history"
				metadata: {name: "timoni-fleet-history.front", namespace: "${nsA}"}
				stringData: history: "{}"
			}
			identity: {
				apiVersion: "v1", kind: "ConfigMap"
				metadata: {name: "${record}", namespace: "kube-system"}
				data: {runtimeCluster: "${SECOND}", uid: "forged"}
			}`;

  it('shows each such object refused in the diff, and applies nothing to the cluster', async () => {
    writeBundle(bundleA, bundleOfA('msg-one', extra.replace('${FORGED}', forgedInstanceData())));
    const diff = await timoniFleet(['diff', '-o', 'json'], bundleA);
    expect(diff.code, diff.stderr).not.toBe(0);
    const planned = JSON.parse(diff.stdout) as ChangeSetJson;
    const cluster = planned.clusters.find((c) => c.name === FIRST)!;
    expect(cluster.status).toBe('failed');
    expect(cluster.error?.step).toBe('reserved');
    const changes = cluster.instances.find((i) => i.name === 'front')!.changes;
    const refused = (kind: string, ns: string, name: string) =>
      changes.find((c) => c.kind === kind && c.namespace === ns && c.name === name);
    expect(refused('Secret', nsA, 'timoni.billing')).toMatchObject({
      action: 'failed',
      error: `Secret/${nsA}/timoni.billing: refused: a bundle may not apply an object that has the name or labels of a Timoni instance record, which timoni-fleet and Timoni read back`,
    });
    expect(refused('Secret', nsA, 'timoni-fleet-history.front')?.action).toBe('failed');
    expect(refused('Secret', nsA, 'timoni-fleet-history.front')?.error).toContain('instance history');
    expect(refused('ConfigMap', 'kube-system', record)?.action).toBe('failed');
    expect(refused('ConfigMap', 'kube-system', record)?.error).toContain('cluster identity record');
    // The ConfigMap of the instance itself is diffed as usual.
    expect(refused('ConfigMap', nsA, 'front')?.action).toBe('created');

    const applied = await timoniFleet(['apply', '-o', 'json'], bundleA);
    expect(applied.code, applied.stderr).not.toBe(0);
    const result = JSON.parse(applied.stdout) as ChangeSetJson;
    expect(result.clusters.map((c) => [c.name, c.status, c.error?.step ?? null])).toEqual([
      [FIRST, 'failed', 'reserved'],
      [SECOND, 'skipped', null],
    ]);
    expect(result.clusters[0]!.error?.message).toContain(`nothing was applied to cluster ${FIRST}`);
    expect(applied.stderr).toContain(`Secret/${nsA}/timoni.billing: refused`);
    // Nothing reached the cluster: no namespace, no record, no identity ConfigMap.
    expect(await first().getOrNull({ apiVersion: 'v1', kind: 'Namespace', name: nsA })).toBeNull();
    expect(
      await first().getOrNull({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'kube-system', name: record }),
    ).toBeNull();
  });
});

describe('records are checked when read', () => {
  it('leaves a forged instance record alone when the bundle no longer lists it: the other team keeps its objects', async () => {
    writeBundle(bundleA, bundleOfA('msg-one'));
    const installed = await timoniFleet(['apply'], bundleA);
    expect(installed.code, installed.stderr).toBe(0);
    const before = await uidsOfB();
    expect(Object.values(before).every(Boolean)).toBe(true);

    // Planted with a client as a bundle object would be written: field manager `timoni`, team A's namespace.
    await first().apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'timoni.billing', namespace: nsA, labels: timoniLabels('billing', bundleA) },
        type: 'timoni.sh/instance',
        data: { instance: forgedInstanceData() },
      } as KubeObject,
      { fieldManager: 'timoni' },
    );

    const diff = await timoniFleet(['diff', '-o', 'json'], bundleA);
    const planned = JSON.parse(diff.stdout) as ChangeSetJson;
    expect(planned.clusters[0]!.instances.map((i) => i.name)).toEqual(['front']);
    expect(diff.stderr).toContain(`Secret/${nsA}/timoni.billing ignored: it names instance ${nsB}/billing`);

    const applied = await timoniFleet(['apply'], bundleA);
    expect(await uidsOfB()).toEqual(before);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain(`Secret/${nsA}/timoni.billing ignored: it names instance ${nsB}/billing`);
    // The forged Secret itself is not acted on either (not deleted as a removed instance's record).
    expect(
      await first().getOrNull({ apiVersion: 'v1', kind: 'Secret', namespace: nsA, name: 'timoni.billing' }),
    ).not.toBeNull();
  });

  it('refuses a rollback to a history that another field manager wrote: the forged revision is never applied', async () => {
    writeBundle(bundleA, bundleOfA('msg-two'));
    const second = await timoniFleet(['apply'], bundleA);
    expect(second.code, second.stderr).toBe(0);
    expect(await messageOfA()).toBe('msg-two');

    // The history as stored, revision 1's values and record forged, written back as a bundle object would be.
    const name = 'timoni-fleet-history.front';
    const stored = await first().get<KubeObject & { data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: nsA,
      name,
    });
    const history = JSON.parse(Buffer.from(stored.data.history!, 'base64').toString('utf8')) as {
      entries: Array<{ revision: number; values: string; record: string }>;
    };
    const forged = `forged-${suffix}`;
    for (const entry of history.entries)
      if (entry.revision === 1) {
        entry.values = entry.values.replaceAll('msg-one', forged);
        entry.record = entry.record.replaceAll('msg-one', forged);
      }
    expect(JSON.stringify(history)).toContain(forged);
    await first().apply(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace: nsA, labels: stored.metadata.labels ?? {} },
        type: 'timoni-fleet.io/history',
        data: { history: Buffer.from(JSON.stringify(history)).toString('base64') },
      } as KubeObject,
      { fieldManager: 'timoni', force: true },
    );

    const rollback = await timoniFleet(['rollback', '--to', '1', '--instance', 'front'], bundleA);
    // The forged values never reached the cluster.
    expect(await messageOfA()).not.toBe(forged);
    expect(rollback.code).not.toBe(0);
    expect(rollback.stderr).toContain(
      `history of instance ${nsA}/front ignored (Secret/${nsA}/${name}): written by field manager(s) timoni, not only timoni-fleet`,
    );
    expect(await messageOfA()).toBe('msg-two');
    expect(await messageOfA(clusterClient(2))).toBe('msg-two');
  });

  it('does not trust an identity record another manager wrote, nor overwrite it', async () => {
    await first().apply(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: record, namespace: 'kube-system' },
        data: { runtimeCluster: SECOND, uid: 'forged', recordedAt: '2026-01-01T00:00:00Z' },
      } as KubeObject,
      { fieldManager: 'timoni', force: true },
    );
    const diff = await timoniFleet(['diff', '-o', 'json', '--cluster-identity', 'check'], bundleA);
    const planned = JSON.parse(diff.stdout) as ChangeSetJson;
    // Not trusted: the record that names another runtime cluster does not refuse this one.
    expect(planned.clusters.find((c) => c.name === FIRST)?.status).toBe('unchanged');
    expect(diff.stderr).toContain(
      `ConfigMap/kube-system/${record} ignored: written by field manager(s) timoni, not only timoni-fleet`,
    );

    const applied = await timoniFleet(['apply', '-o', 'json', '--cluster-identity', 'record'], bundleA);
    expect(applied.code).not.toBe(0);
    const result = JSON.parse(applied.stdout) as ChangeSetJson;
    const refused = result.clusters.find((c) => c.name === FIRST)!;
    expect(refused.status).toBe('failed');
    expect(refused.error?.step).toBe('identity');
    expect(refused.error?.message).toContain(
      `ConfigMap/kube-system/${record} ignored: written by field manager(s) timoni`,
    );
    const kept = await first().get<KubeObject & { data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: 'kube-system',
      name: record,
    });
    expect(kept.data.uid).toBe('forged');
  });
});
