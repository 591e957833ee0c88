// Arguments that cannot be misread, as a user types them (`node dist/cli/index.js`) on the
// local fleet: `apply --wait false` is refused before anything is applied, with the
// spelling that works; a stray word is an error; an unknown flag names the nearest one and
// `--help`; `--version` and `version` name timoni-fleet's version, CUE's and the engine;
// `--timeout 3s` is echoed as 3s when the wait runs out; and the help texts say what each
// flag does in that command. The bundle has a name and a namespace of this file's own.
import { randomBytes } from 'node:crypto';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject } from '../harness/fleet/kube-client.js';
import { createNamespace, type TestNamespace } from '../harness/fleet/namespace.js';
import { clusterClient, scratchDir, testFleet } from '../harness/fleet/test-context.js';
import { repositoryRoot } from '../harness/support/go-binary.js';
import { runBuiltCli, type CliResult } from './run-cli.js';

const suffix = randomBytes(4).toString('hex');
let dir: string;
let namespace: TestNamespace;

function timoniFleet(...argv: string[]): Promise<CliResult> {
  return runBuiltCli(argv, dir);
}

const fleetArgs = () => ['-f', 'bundle.cue', '-r', 'runtime.cue', '--kubeconfig', testFleet().kubeconfigPath];

/** Timoni's record of the instance: there only once something was applied. */
const instanceRecord = () =>
  clusterClient(0).getOrNull<KubeObject>({
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: namespace.name,
    name: 'timoni.web',
  });

beforeAll(async () => {
  dir = scratchDir('cli-arguments');
  namespace = await createNamespace(clusterClient(0), { prefix: 'cli-arguments' });
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), join(dir, 'webapp'), { recursive: true });
  writeFileSync(
    join(dir, 'bundle.cue'),
    `bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "cli-arguments-${suffix}"\n\tinstances: web: {\n\t\tmodule: url: "file://./webapp"\n\t\tnamespace: "${namespace.name}"\n\t\tvalues: test: enabled: false\n\t}\n}\n`,
  );
  writeFileSync(
    join(dir, 'runtime.cue'),
    'runtime: {\n\tapiVersion: "v1alpha1"\n\tname: "arguments"\n\tclusters: "mine": {group: "staging", kubeContext: "fleet-1"}\n}\n',
  );
});

afterAll(async () => {
  await timoniFleet('delete', ...fleetArgs(), '--wait=false').catch(() => undefined);
  await namespace?.delete().catch(() => undefined);
});

describe('arguments that cannot be misread', { timeout: 120_000 }, () => {
  it('refuses `apply --wait false` before anything is applied, and says to write --wait=false', async () => {
    // With --timeout 3s, today's reading (wait, `false` ignored) fails in 3 s rather than 5 min.
    const result = await timoniFleet('apply', ...fleetArgs(), '--wait', 'false', '--timeout', '3s');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('--wait takes its value after "=": write --wait=false');
    expect(await instanceRecord()).toBeNull();
  });

  it('refuses a stray word (`vet ... junk more`)', async () => {
    const result = await timoniFleet('vet', ...fleetArgs(), 'junk', 'more');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unexpected argument "junk": vet takes flags only');
    expect(result.stderr).not.toContain('bundle is valid');
  });

  it('names the nearest flag and --help for an unknown one', async () => {
    const result = await timoniFleet('diff', ...fleetArgs(), '--runtime-grup', 'staging');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'unknown flag --runtime-grup: did you mean --runtime-group? Run `timoni-fleet diff --help` for the flags.',
    );
    const elsewhere = await timoniFleet('status', ...fleetArgs(), '--wait');
    expect(elsewhere.stderr).toContain('unknown flag --wait: status does not take it (apply, delete, rollback do)');
  });

  it('prints the version, the CUE version and the engine for --version and version', async () => {
    for (const argv of [['--version'], ['version']]) {
      const result = await timoniFleet(...argv);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^timoni-fleet \d+\.\d+\.\d+\nCUE v0\.\d+\.\d+\nengine (native|WebAssembly)/);
    }
    const wasm = await runBuiltCli(['version'], dir, { TIMONI_FLEET_CUE_ENGINE: 'wasm' });
    expect(wasm.stdout).toContain('engine WebAssembly\n');
  });

  it('echoes --timeout as given when the wait runs out, never in milliseconds', async () => {
    const result = await timoniFleet('apply', ...fleetArgs(), '--timeout', '3s');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('timeout (time limit 3s) waiting for');
    expect(result.stderr).not.toMatch(/3000 ?ms/);
  });

  it('help texts say what each flag does in that command, and list the values of -o', async () => {
    const remove = (await timoniFleet('delete', '--help')).stdout;
    expect(remove).toMatch(/--wait +Wait for the deleted objects to be gone/);
    expect(remove).toMatch(/--timeout value +Time limit of each cluster's delete/);
    expect(remove).not.toContain('become ready');
    const apply = (await timoniFleet('apply', '--help')).stdout;
    expect(apply).not.toContain('diffed at once');
    expect(apply).toMatch(/-o, --output text\|json +Output format/);
    expect((await timoniFleet('build', '--help')).stdout).toMatch(/-o, --output yaml\|json/);
    expect((await timoniFleet('diff', '--help')).stdout).toMatch(/--concurrency value +Clusters diffed at once/);
  });
});
