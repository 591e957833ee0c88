// `npm run fleet -- up/status/down` as a user runs it, with its own one-cluster fleet beside
// the test run's (and its registry holding the example module): `down` must leave no
// process and no file behind.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/go-binary.js';
import { pullManifest } from '../registry/pull.js';
import { parseEnvFile } from './env-file.js';
import { KubeClient } from './kube-client.js';
import { isRunning } from './processes.js';
import { processesToStop, readState, type FleetState } from './state.js';
import { scratchDir } from './test-context.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function fleetCli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      join(repositoryRoot, 'node_modules', '.bin', 'tsx'),
      [join(repositoryRoot, 'test', 'harness', 'fleet', 'cli.ts'), ...args],
      { cwd: repositoryRoot, timeout: 300_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

// Inside the test run's fleet folder, so that an interrupted run's teardown sweeps this fleet too.
const dir = join(scratchDir('cli'), 'fleet');
let state: FleetState | null = null;

afterAll(async () => {
  // Whatever happened above, stop what this test started.
  if (existsSync(dir)) await fleetCli('down', '--dir', dir);
  rmSync(dirname(dir), { recursive: true, force: true });
});

describe('npm run fleet', () => {
  it(
    'starts a cluster with `up`, reports it with `status`, refuses a second `up` in the same folder',
    { timeout: 300_000 },
    async () => {
      const up = await fleetCli('up', '--clusters', '1', '--dir', dir, '--name-prefix', 'cli');
      expect(up.stderr).toContain('cli-1: kube-apiserver v1.36.3 ready');
      expect(up.code, up.stderr).toBe(0);
      const env = parseEnvFile(up.stdout);
      expect(env).toMatchObject({
        FLEET_DIR: dir,
        KUBECONFIG: join(dir, 'kubeconfig'),
        FLEET_CLUSTERS: 'cli-1',
        FLEET_CONTEXTS: 'cli-1',
        FLEET_CLUSTER_1_CONTEXT: 'cli-1',
      });
      expect(parseEnvFile(readFileSync(join(dir, 'env'), 'utf8'))).toEqual(env);

      // The registry examples/bundle.cue reads through DEMO_REGISTRY serves the example module at the bundle's version.
      expect(env.DEMO_REGISTRY).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(env).toMatchObject({
        REGISTRY_HOST: env.DEMO_REGISTRY,
        REGISTRY_URL: `http://${env.DEMO_REGISTRY}`,
        REGISTRY_MODULE: `oci://${env.DEMO_REGISTRY}/modules/webapp`,
        REGISTRY_MODULE_VERSION: '1.4.0',
      });
      const manifest = await pullManifest({
        registry: `http://${env.DEMO_REGISTRY}`,
        repository: 'modules/webapp',
        reference: '1.4.0',
      });
      expect(manifest.registryDigest).toBe(manifest.digest);

      state = readState(dir);
      expect(state?.clusters[0]?.processes.map((record) => record.component)).toEqual([
        'etcd',
        'kube-apiserver',
        'kube-controller-manager',
      ]);
      expect(state?.registry?.processes.map((record) => record.component)).toEqual(['registry']);
      expect(state?.registry?.module?.digest).toBe(manifest.digest);
      expect(processesToStop(state as FleetState).every(isRunning)).toBe(true);

      const client = KubeClient.fromKubeconfig(readFileSync(join(dir, 'kubeconfig'), 'utf8'), 'cli-1');
      try {
        expect((await client.version()).gitVersion).toBe('v1.36.3');
      } finally {
        client.close();
      }

      const status = await fleetCli('status', '--dir', dir, '--json');
      expect(status.code, status.stderr).toBe(0);
      interface PartStatus {
        ready: boolean;
        components: Array<{ running: boolean; rssKiB: number }>;
      }
      const parsed = JSON.parse(status.stdout) as {
        clusters: PartStatus[];
        registry?: PartStatus & { url: string; module?: { url: string; version: string } };
      };
      expect(parsed.clusters).toHaveLength(1);
      expect(parsed.clusters[0]?.ready).toBe(true);
      expect(parsed.clusters[0]?.components.every((component) => component.running && component.rssKiB > 0)).toBe(true);
      expect(parsed.registry).toMatchObject({
        ready: true,
        url: env.REGISTRY_URL,
        module: { url: env.REGISTRY_MODULE, version: '1.4.0' },
      });
      expect(parsed.registry?.components.every((component) => component.running && component.rssKiB > 0)).toBe(true);
      const text = await fleetCli('status', '--dir', dir);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(`registry  ${env.REGISTRY_URL}  ${env.REGISTRY_MODULE}:1.4.0  ready`);

      const again = await fleetCli('up', '--clusters', '1', '--dir', dir);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`a fleet is already running in ${dir}`);
    },
  );

  it('reports stopped components, and `up` replaces a fleet whose processes died', { timeout: 300_000 }, async () => {
    expect(state, 'the first test started a fleet').not.toBeNull();
    for (const record of processesToStop(state as FleetState)) process.kill(record.pid, 'SIGKILL');
    const deadline = Date.now() + 10_000;
    while (processesToStop(state as FleetState).some(isRunning) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));

    const status = await fleetCli('status', '--dir', dir);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/kube-apiserver\s+pid \d+\s+STOPPED/);
    expect(status.stdout).toMatch(/registry\s+pid \d+\s+STOPPED/);
    expect(status.stdout).toContain('NOT READY');

    const up = await fleetCli('up', '--clusters', '1', '--dir', dir, '--name-prefix', 'cli');
    expect(up.code, up.stderr).toBe(0);
    const replaced = readState(dir);
    expect(replaced?.clusters[0]?.processes.every(isRunning)).toBe(true);
    expect(replaced?.registry?.processes.every(isRunning)).toBe(true);
    expect(replaced?.clusters[0]?.processes.map((record) => record.pid)).not.toEqual(
      state?.clusters[0]?.processes.map((record) => record.pid),
    );
    state = replaced;
  });

  it('stops everything with `down` and removes its files', { timeout: 120_000 }, async () => {
    expect(state, 'the previous test started a fleet').not.toBeNull();
    const records = processesToStop(state as FleetState);
    const down = await fleetCli('down', '--dir', dir);
    expect(down.code, down.stderr).toBe(0);
    expect(down.stderr).toContain(`stopped the fleet in ${dir}`);
    for (const record of records) expect(isRunning(record), `${record.component} pid ${record.pid}`).toBe(false);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);

    const status = await fleetCli('status', '--dir', dir);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('no fleet recorded');
    const downAgain = await fleetCli('down', '--dir', dir);
    expect(downAgain.code).toBe(0);
    expect(downAgain.stderr).toContain('nothing to stop');
  });
});
