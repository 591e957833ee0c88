// End to end: faults a rollout should ride out, or report precisely, injected on a cluster of
// this file's own (a fleet of one, started here: the shared fleet is never touched).
//
//   - The API server is killed and started again while `apply` waits on a Deployment: the
//     CLI (`node dist/cli/index.js apply`) retries the refused requests with backoff, says so
//     on stderr (cluster, request, reason), and the rollout completes.
//   - A hung API server (a TCP proxy in front of the real one that accepts connections and
//     stops forwarding): a request fails after one time limit, not two.
//   - The cluster's etcd stopped (SIGSTOP) while the API server runs: `/version` answers, the
//     identity check's GET (of its record ConfigMap) does not. The error names that request
//     and says that the server accepted the connection; the ChangeSet names the step.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { openCluster } from '../../src/kube/connect/cluster.js';
import { KubeConnectionError } from '../../src/kube/connect/errors.js';
import { loadKubeconfig } from '../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../src/secrets.js';
import { startApiserver, stopApiserver } from '../harness/fleet/apiserver-outage.js';
import { fleetClient, startFleet, type Fleet } from '../harness/fleet/fleet.js';
import type { KubeClient } from '../harness/fleet/kube-client.js';
import { createNamespace } from '../harness/fleet/namespace.js';
import { keepReady } from '../harness/fleet/readiness.js';
import { readState } from '../harness/fleet/state.js';
import { scratchDir } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

const cli = join(repositoryRoot, 'dist', 'cli', 'index.js');
const CLUSTER = 'faults-1';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

let fleet: Fleet;
let client: KubeClient;
let dir: string;
/** The etcd process of the test's cluster, once it was stopped with SIGSTOP (resumed at the end). */
let stoppedEtcd: number | undefined;

beforeAll(async () => {
  fleet = await startFleet({ clusters: 1, dir: scratchDir('faults-fleet'), namePrefix: 'faults' });
  client = fleetClient(fleet, CLUSTER);
  dir = scratchDir('faults-files');
  writeFileSync(
    join(dir, 'runtime.cue'),
    `runtime: {
	apiVersion: "v1alpha1"
	name:       "faults"
	clusters: "flaky": {group: "production", kubeContext: "${CLUSTER}"}
}
`,
  );
});

afterAll(async () => {
  if (stoppedEtcd !== undefined) {
    try {
      process.kill(stoppedEtcd, 'SIGCONT');
    } catch {
      // already gone
    }
  }
  client?.close();
  await fleet?.stop();
});

/** A bundle of two instances of the example module, in the two namespaces given. */
function writeBundle(name: string, namespaces: [string, string]): string {
  const instance = (namespace: string) => `{
			module: url: "file://${join(repositoryRoot, 'examples', 'modules', 'webapp')}"
			namespace: "${namespace}"
			values: test: enabled: false
		}`;
  const path = join(dir, `${name}.cue`);
  writeFileSync(
    path,
    `bundle: {
	apiVersion: "v1alpha1"
	name:       "${name}"
	instances: {
		first: ${instance(namespaces[0])}
		second: ${instance(namespaces[1])}
	}
}
`,
  );
  return path;
}

/** `node dist/cli/index.js <args>` as a user runs it, against the test's cluster. */
function timoniFleet(...args: string[]): Promise<Run> {
  const started = Date.now();
  const env = { PATH: process.env.PATH ?? '', HOME: dir, XDG_CACHE_HOME: join(dir, 'cache') };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [cli, ...args, '--kubeconfig', fleet.kubeconfigPath],
      { cwd: repositoryRoot, env, timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : -1) : 0,
          stdout,
          stderr,
          elapsedMs: Date.now() - started,
        });
      },
    );
  });
}

function changeSetOf(run: Run): ChangeSet {
  try {
    return JSON.parse(run.stdout) as ChangeSet;
  } catch {
    throw new Error(`no ChangeSet printed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitUntilExists(
  ref: { apiVersion: string; kind: string; namespace: string; name: string },
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await client.getOrNull(ref))) {
    if (Date.now() > deadline)
      throw new Error(`${ref.kind}/${ref.namespace}/${ref.name} did not appear within ${timeoutMs} ms`);
    await sleep(50);
  }
}

/**
 * A TCP proxy in front of the test's API server (same address, another port: its certificate
 * still matches). `hang()` makes it accept new connections and say nothing on them.
 */
async function hangingProxy(upstreamPort: number): Promise<{ port: number; hang(): void; close(): Promise<void> }> {
  let hung = false;
  const sockets = new Set<Socket>();
  const server: Server = createServer((downstream) => {
    sockets.add(downstream);
    downstream.on('close', () => sockets.delete(downstream));
    downstream.on('error', () => downstream.destroy());
    if (hung) return;
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    for (const socket of [downstream, upstream]) socket.on('error', () => (downstream.destroy(), upstream.destroy()));
    downstream.pipe(upstream);
    upstream.pipe(downstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hang: () => {
      hung = true;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('transient faults during a rollout', () => {
  it('rides out an API server restarted while apply waits: retries logged, the rollout completes', async () => {
    const [a, b] = await Promise.all([
      createNamespace(client, { prefix: 'restart-a' }),
      createNamespace(client, { prefix: 'restart-b' }),
    ]);
    const bundle = writeBundle('restart', [a.name, b.name]);
    const applying = timoniFleet(
      'apply',
      '-f',
      bundle,
      '-r',
      join(dir, 'runtime.cue'),
      '--timeout',
      '90s',
      '-o',
      'json',
    );

    // The first instance's objects are applied and apply polls its Deployment, which nothing
    // makes ready yet: kill the API server now, start it again, then let the workloads become ready.
    const finishedEarly = applying.then((run) => {
      throw new Error(`apply ended (exit ${run.code}) before its first Deployment was there:\n${run.stderr}`);
    });
    await Promise.race([
      waitUntilExists({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: a.name, name: 'first' }, 60_000),
      finishedEarly,
    ]);
    finishedEarly.catch(() => undefined);
    const outageStarted = Date.now();
    await stopApiserver(fleet.dir, CLUSTER, 1_000);
    await startApiserver(fleet.dir, CLUSTER);
    const outageMs = Date.now() - outageStarted;
    const ready = [keepReady(client, a.name, 200), keepReady(client, b.name, 200)];
    let run: Run;
    try {
      run = await applying;
    } finally {
      await Promise.all(ready.map((loop) => loop.stop().catch(() => undefined)));
    }

    expect(run.code, run.stderr).toBe(0);
    const entry = changeSetOf(run).clusters[0]!;
    expect(entry.status).toBe('applied');
    expect(entry.instances.filter((i) => !i.removed).map((i) => i.name)).toEqual(['first', 'second']);
    // Each retry is one line naming the cluster, the request and why it is retried.
    const retries = run.stderr.split('\n').filter((line) => /retry/i.test(line));
    expect(retries.length, `outage of ${outageMs} ms; stderr:\n${run.stderr}`).toBeGreaterThan(0);
    for (const line of retries) {
      expect(line).toMatch(
        /^cluster flaky: (\S+: )?(GET|DELETE|PATCH|server-side apply)( \(dry-run\))? \/\S+: .+; retry \d+ in \d/,
      );
    }
    expect(run.stderr).toMatch(
      /cluster flaky: Deployment\/restart-a-[a-z0-9]+\/first: GET \/apis\/apps\/v1\/namespaces\/restart-a-[a-z0-9]+\/deployments\/first: (connection refused|connection reset|HTTP 429|HTTP 503)/,
    );
  });

  it('gives a hung API server one time limit per request, from before the connection to the last byte', async () => {
    const upstreamPort = Number(new URL(fleet.clusters[0]!.server).port);
    const proxy = await hangingProxy(upstreamPort);
    try {
      const secrets = new SecretRegistry();
      const text = readFileSync(fleet.kubeconfigPath, 'utf8').replaceAll(
        `https://127.0.0.1:${upstreamPort}`,
        `https://127.0.0.1:${proxy.port}`,
      );
      const timeoutMs = 4_000;
      const cluster = openCluster(loadKubeconfig([text], secrets), CLUSTER, { secrets, name: 'hung-1', timeoutMs });
      expect((await cluster.client.version()).gitVersion).toBe('v1.36.3');
      cluster.close();
      proxy.hang();
      const started = Date.now();
      const error = await cluster.client.version().catch((e: unknown) => e);
      const elapsedMs = Date.now() - started;
      expect(error).toBeInstanceOf(KubeConnectionError);
      // One bound: not a connect phase and then a second bound once the TCP connection is accepted.
      expect(elapsedMs).toBeGreaterThanOrEqual(timeoutMs - 100);
      expect(elapsedMs).toBeLessThan(timeoutMs * 1.5);
      expect((error as Error).message).toBe(
        `cluster hung-1: GET /version: the API server at https://127.0.0.1:${proxy.port} accepted the connection but the TLS handshake did not finish within ${(timeoutMs / 1000).toFixed(1)} s [ETIMEDOUT]`,
      );
      cluster.close();
    } finally {
      await proxy.close();
    }
  });

  it('with etcd stopped: names the request that got no answer, says the connection was accepted, and the step', async () => {
    const [a, b] = await Promise.all([
      createNamespace(client, { prefix: 'etcd-a' }),
      createNamespace(client, { prefix: 'etcd-b' }),
    ]);
    const bundle = writeBundle('etcd', [a.name, b.name]);
    const etcd = readState(fleet.dir)!.clusters[0]!.processes.find((p) => p.component === 'etcd')!;
    process.kill(etcd.pid, 'SIGSTOP');
    stoppedEtcd = etcd.pid;
    const run = await timoniFleet('diff', '-f', bundle, '-r', join(dir, 'runtime.cue'), '-o', 'json');

    expect(run.code, run.stderr).not.toBe(0);
    const entry = changeSetOf(run).clusters[0]!;
    expect(entry.status).toBe('failed');
    expect(entry.error?.step).toBe('identity');
    const expected = new RegExp(
      `^cluster flaky: ConfigMap/kube-system/timoni-fleet-identity: GET /api/v1/namespaces/kube-system/configmaps/timoni-fleet-identity: the API server at https://127\\.0\\.0\\.1:\\d+ accepted the connection but sent no answer within 30\\.0 s \\[ETIMEDOUT\\]$`,
    );
    expect(entry.error?.message).toMatch(expected);
    expect(run.stderr).toContain(
      'ConfigMap/kube-system/timoni-fleet-identity: GET /api/v1/namespaces/kube-system/configmaps/timoni-fleet-identity: the API server at',
    );
    // One time limit, not two.
    expect(run.elapsedMs).toBeLessThan(50_000);
  });
});
