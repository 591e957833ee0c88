// Instances removed from the bundle (beyond Timoni), end to end through the CLI on the local
// fleet: an instance stored under the bundle's label that the bundle no longer lists is
// shown by `diff` ("instance removed from the bundle: N objects would be deleted"), deleted
// by `apply` (objects in reverse apply order, then its inventory Secret), kept with
// --prune-removed-instances=false (or --prune=false); another bundle's instance in the same
// namespace is never touched; and a ServiceAccount confined to the bundle's namespaces
// (no right to list Secrets across the cluster; `list namespaces` is enough) gets the same
// result.
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { clusterClient, scratchDir, testFleet, testNamespace } from '../harness/fleet/test-context.js';
import { runCliCaptured, type CliResult } from '../cli/run-cli.js';
import { fixtures } from './fleet-layer-cli.js';

const cluster = 'fleet-3';

interface Namespaces {
  a: string;
  b: string;
}

interface Run {
  ns: Namespaces;
  kubeconfig?: string;
}

function cli(
  command: 'diff' | 'apply',
  file: string,
  run: Run,
  withB: boolean,
  ...extra: string[]
): Promise<CliResult> {
  return runCliCaptured(
    [
      command,
      '-f',
      file,
      '-r',
      'runtime-fleet-3.cue',
      '--kubeconfig',
      run.kubeconfig ?? inject('fleet').kubeconfigPath,
      '--runtime-from-env',
      ...extra,
    ],
    { cwd: fixtures, env: { PARTS_NS_A: run.ns.a, PARTS_NS_B: run.ns.b, PARTS_WITH_B: String(withB) } },
  );
}

async function json(result: Promise<CliResult>, code: number): Promise<ChangeSet> {
  const done = await result;
  expect(done.code, done.stderr).toBe(code);
  return JSON.parse(done.stdout) as ChangeSet;
}

async function namespaces(prefix: string): Promise<Namespaces> {
  const [a, b] = await Promise.all([testNamespace(cluster, `${prefix}-a`), testNamespace(cluster, `${prefix}-b`)]);
  return { a: a.name, b: b.name };
}

/** The instance's objects and inventory Secret that exist, as `Kind/name` lines. */
async function present(namespace: string, instance: string): Promise<string[]> {
  const admin = clusterClient(cluster);
  const refs = [
    { apiVersion: 'v1', kind: 'ServiceAccount', name: instance },
    { apiVersion: 'v1', kind: 'ConfigMap', name: instance },
    { apiVersion: 'v1', kind: 'Service', name: instance },
    { apiVersion: 'v1', kind: 'Secret', name: `timoni.${instance}` },
  ];
  const found = await Promise.all(refs.map((ref) => admin.getOrNull({ ...ref, namespace })));
  return refs.filter((_, index) => found[index]).map((ref) => `${ref.kind}/${ref.name}`);
}

const everything = (instance: string) => [
  `ServiceAccount/${instance}`,
  `ConfigMap/${instance}`,
  `Service/${instance}`,
  `Secret/timoni.${instance}`,
];

/** Applies the bundle with both instances, and the other bundle's instance `c` beside `b`. */
async function installed(run: Run): Promise<void> {
  await json(cli('apply', 'removal-bundle.cue', run, true, '-o', 'json'), 0);
  await json(cli('apply', 'removal-other-bundle.cue', { ns: run.ns }, true, '-o', 'json'), 0);
}

/** What diff and apply show and do once `b` leaves the bundle. */
async function expectRemoval(run: Run): Promise<void> {
  const { ns } = run;
  const diffResult = cli('diff', 'removal-bundle.cue', run, false, '-o', 'json');
  const plan = await json(diffResult, 1);
  const entry = plan.clusters[0]!;
  expect(entry.status).toBe('changed');
  expect(entry.instances.map((i) => [i.name, i.namespace, i.removed ?? false])).toEqual([
    ['a', ns.a, false],
    ['b', ns.b, true],
  ]);
  const [a, b] = entry.instances;
  expect(a!.changes.every((c) => c.action === 'unchanged')).toBe(true);
  // The removed instance's objects in reverse apply order (a's are in apply order), each deleted.
  const kinds = (changes: ChangeSet['clusters'][number]['instances'][number]['changes']) => changes.map((c) => c.kind);
  expect(kinds(b!.changes)).toEqual(kinds(a!.changes).reverse());
  expect(b!.changes.map((c) => c.action)).toEqual(['deleted', 'deleted', 'deleted']);
  expect(b!.changes.find((c) => c.kind === 'ConfigMap')?.diff).toContain('-  message: b');
  expect(b!.module.url).toContain('modules/parts');
  expect((await diffResult).stderr).toContain(
    'b:parts-removal > c:third > i:b > instance removed from the bundle: 3 objects would be deleted',
  );
  // A diff writes nothing.
  expect(await present(ns.b, 'b')).toEqual(everything('b'));

  const applyResult = cli('apply', 'removal-bundle.cue', run, false, '-o', 'json');
  const applied = await json(applyResult, 0);
  const removed = applied.clusters[0]!.instances.find((i) => i.name === 'b');
  expect(removed?.removed).toBe(true);
  expect(removed?.changes.map((c) => `${c.kind} ${c.action}`)).toEqual(b!.changes.map((c) => `${c.kind} deleted`));
  expect((await applyResult).stderr).toContain(
    'b:parts-removal > c:third > i:b > instance removed from the bundle: 3 objects deleted',
  );
  expect(await present(ns.b, 'b')).toEqual([]);
  expect(await present(ns.a, 'a')).toEqual(everything('a'));
  // Another bundle's instance in the same namespace: untouched.
  expect(await present(ns.b, 'c')).toEqual(everything('c'));
  const secretC = await clusterClient(cluster).get({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: ns.b,
    name: 'timoni.c',
  });
  expect(secretC.metadata.labels?.['bundle.timoni.sh/name']).toBe('parts-other');

  // In sync afterwards: nothing removed left.
  const after = await json(cli('diff', 'removal-bundle.cue', run, false, '-o', 'json'), 0);
  expect(after.clusters[0]!.instances.map((i) => i.name)).toEqual(['a']);
}

describe('instances removed from the bundle', () => {
  it('diff shows the removed instance, apply deletes it, another bundle is untouched', async () => {
    const run = { ns: await namespaces('rm') };
    await installed(run);
    await expectRemoval(run);
  });

  it('--prune-removed-instances=false (or --prune=false) keeps them, in diff and apply', async () => {
    const run = { ns: await namespaces('rm-keep') };
    await installed(run);
    for (const flag of ['--prune-removed-instances=false', '--prune=false']) {
      const plan = await json(cli('diff', 'removal-bundle.cue', run, false, '-o', 'json', flag), 0);
      expect(plan.clusters[0]!.instances.map((i) => i.name)).toEqual(['a']);
      const applied = await json(cli('apply', 'removal-bundle.cue', run, false, '-o', 'json', flag), 0);
      expect(applied.clusters[0]!.instances.map((i) => i.name)).toEqual(['a']);
      expect(await present(run.ns.b, 'b')).toEqual(everything('b'));
    }
    // Without the flag the instance is still there to remove.
    const plan = await json(cli('diff', 'removal-bundle.cue', run, false, '-o', 'json'), 1);
    expect(plan.clusters[0]!.instances.map((i) => [i.name, i.removed ?? false])).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  it('a ServiceAccount bound only in the bundle namespaces (no cluster-wide Secret list) finds them with `list namespaces`, and deletes them', async () => {
    const ns = await namespaces('rm-sa');
    const { token, allowNamespaceList } = await confinedServiceAccount(ns);
    const kubeconfig = writeTokenKubeconfig(token);
    // The confined account may not list Secrets (nor Namespaces, yet) across the cluster, but may in its namespaces.
    expect(await statusFor(token, '/api/v1/secrets')).toBe(403);
    expect(await statusFor(token, '/api/v1/namespaces')).toBe(403);
    expect(await statusFor(token, `/api/v1/namespaces/${ns.b}/secrets`)).toBe(200);
    const run = { ns, kubeconfig };
    await installed(run);

    // Without `list namespaces`, only the bundle's own namespaces are looked in: b's namespace
    // is no longer one of them, so b is not found, and the log says where it looked.
    const blind = await cli('diff', 'removal-bundle.cue', run, false, '-o', 'json');
    expect(blind.code, blind.stderr).toBe(0);
    expect((JSON.parse(blind.stdout) as ChangeSet).clusters[0]!.instances.map((i) => i.name)).toEqual(['a']);
    expect(blind.stderr).toContain(
      'b:parts-removal > c:third > cannot list Secrets or Namespaces across the cluster: instances removed from the bundle are looked for in its own namespaces only',
    );

    // With `list namespaces` (no Secret right across the cluster), every namespace it may read is looked in.
    await allowNamespaceList();
    await expectRemoval(run);
    const logged = await cli('diff', 'removal-bundle.cue', run, false);
    const unchecked =
      /b:parts-removal > c:third > cannot list Secrets in (\d+) namespaces (.*?)(?:, and (\d+) more)?: instances removed from the bundle there are not checked/.exec(
        logged.stderr,
      );
    expect(unchecked, logged.stderr).not.toBeNull();
    // At least the system namespaces (default, kube-node-lease, kube-public, kube-system);
    // the first five by name are shown, so kube-system is when fewer namespaces precede it
    // (other tests' namespaces on a shared fleet may).
    const count = Number(unchecked![1]);
    const shown = unchecked![2]!.split(', ');
    expect(count).toBeGreaterThanOrEqual(4);
    expect(shown).toHaveLength(Math.min(count, 5));
    expect(Number(unchecked![3] ?? 0)).toBe(count - shown.length);
    expect(shown).not.toContain(ns.a);
    expect(shown).not.toContain(ns.b);
    expect([...shown].sort()).toEqual(shown);
    if (count <= 5 || shown.some((name) => name > 'kube-system')) expect(shown).toContain('kube-system');
  });
});

/**
 * A ServiceAccount in namespace a with every right in namespaces a and b (Roles) and only
 * `get` on Namespaces across the cluster; answers a token for it, once the authorizer
 * knows the bindings.
 */
async function confinedServiceAccount(
  ns: Namespaces,
): Promise<{ token: string; allowNamespaceList: () => Promise<void> }> {
  const admin = clusterClient(cluster);
  const name = 'deployer';
  await admin.apply({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns.a } });
  const subject = { kind: 'ServiceAccount', name, namespace: ns.a };
  for (const namespace of [ns.a, ns.b]) {
    await admin.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name, namespace },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    });
    await admin.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: [subject],
    });
  }
  const clusterRole = `${ns.a}-namespaces`;
  const namespaceRole = (verbs: string[]) =>
    admin.apply({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: clusterRole },
      rules: [{ apiGroups: [''], resources: ['namespaces'], verbs }],
    });
  await namespaceRole(['get']);
  await admin.apply({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: clusterRole },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
    subjects: [subject],
  });
  onTestFinished(async () => {
    await admin
      .delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: clusterRole })
      .catch(() => undefined);
    await admin
      .delete({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: clusterRole })
      .catch(() => undefined);
  });
  const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } };
  const answer = await admin.requestJson<KubeObject & { status: { token: string } }>(
    'POST',
    `/api/v1/namespaces/${ns.a}/serviceaccounts/${name}/token`,
    { body: JSON.stringify(request) },
  );
  const token = answer.status.token;
  await granted(token, [`/api/v1/namespaces/${ns.b}/secrets`, `/api/v1/namespaces/${ns.a}`]);
  return {
    token,
    allowNamespaceList: async () => {
      await namespaceRole(['get', 'list']);
      await granted(token, ['/api/v1/namespaces']);
    },
  };
}

/** Waits until every GET is allowed: the authorizer learns of new bindings through its informers, a moment after the write. */
async function granted(token: string, paths: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (const path of paths) {
    while ((await statusFor(token, path)) === 403) {
      if (Date.now() > deadline) throw new Error(`the ServiceAccount was not allowed GET ${path} within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function fleetCluster() {
  const found = testFleet().clusters.find((c) => c.contextName === cluster);
  if (!found) throw new Error(`no cluster ${cluster} in the fleet`);
  return found;
}

/** A kubeconfig whose context `fleet-3` (as the runtime names it) uses the token. */
function writeTokenKubeconfig(token: string): string {
  const { server, caCertPath } = fleetCluster();
  const path = join(scratchDir('removed-instances'), 'kubeconfig');
  const ca = readFileSync(caCertPath).toString('base64');
  writeFileSync(
    path,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: ${cluster}\n  cluster:\n    server: ${server}\n    certificate-authority-data: ${ca}\nusers:\n- name: deployer\n  user:\n    token: ${token}\ncontexts:\n- name: ${cluster}\n  context:\n    cluster: ${cluster}\n    user: deployer\ncurrent-context: ${cluster}\n`,
    { mode: 0o600 },
  );
  return path;
}

/** The HTTP status of a GET with the token. */
function statusFor(token: string, path: string): Promise<number> {
  const { server, caCertPath } = fleetCluster();
  return new Promise((resolve, reject) => {
    const req = request(
      new URL(path, server),
      {
        method: 'GET',
        ca: readFileSync(caCertPath),
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        timeout: 10_000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`GET ${path}: no answer`)));
    req.on('error', reject);
    req.end();
  });
}
