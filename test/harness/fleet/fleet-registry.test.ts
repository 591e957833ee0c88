// The fleet's registry piece (`npm run fleet -- up`): the example module read from
// examples/bundle.cue, the registry started detached and serving that module, its env entries.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../support/go-binary.js';
import { pullArtifact } from '../registry/pull.js';
import { versionAnnotation } from '../registry/timoni-module.js';
import { exampleModule, registryEnv, servesApi, startFleetRegistry, type RegistryState } from './fleet-registry.js';
import { isRunning, stopProcesses } from './processes.js';
import { scratchDir } from './test-context.js';

describe('exampleModule', () => {
  it('reads the module, its version and the registry variable from examples/bundle.cue', () => {
    const module = exampleModule();
    expect(module).toEqual({
      bundlePath: join(repositoryRoot, 'examples', 'bundle.cue'),
      moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
      repository: 'modules/webapp',
      version: '1.4.0',
      registryVariable: 'DEMO_REGISTRY',
    });
    expect(existsSync(join(module.moduleDir, 'timoni.cue'))).toBe(true);
  });

  it('names the bundle file and what it misses when the bundle is written another way', () => {
    const root = mkdtempSync(join(tmpdir(), 'timoni-fleet-examples-'));
    try {
      mkdirSync(join(root, 'examples'));
      writeFileSync(
        join(root, 'examples', 'bundle.cue'),
        'bundle: instances: a: module: {url: "oci://ghcr.io/x/modules/a", version: "1.0.0"}\n',
      );
      expect(() => exampleModule(root)).toThrow(
        `${join(root, 'examples', 'bundle.cue')}: expected exactly one registry attribute`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('startFleetRegistry', () => {
  const dir = join(scratchDir('fleet-registry'), 'registry');
  const recorded: RegistryState[] = [];
  let state: RegistryState | undefined;

  afterAll(async () => {
    await stopProcesses(state?.processes ?? recorded.at(-1)?.processes ?? []);
  });

  it(
    'starts a registry that outlives its caller and serves the example module; its env entries name it',
    { timeout: 120_000 },
    async () => {
      const lines: string[] = [];
      state = await startFleetRegistry({
        dir,
        log: (line) => lines.push(line),
        onChange: (changed) => recorded.push(structuredClone(changed)),
      });
      const module = exampleModule();

      // Recorded as soon as the process exists (so that a failed start can be stopped), then with the module.
      expect(recorded[0]?.processes).toHaveLength(1);
      expect(recorded[0]?.module).toBeUndefined();
      expect(recorded.at(-1)).toEqual(state);
      const [record] = state.processes;
      expect(record?.component).toBe('registry');
      expect(record && isRunning(record)).toBe(true);
      expect(record?.logPath).toBe(join(dir, 'registry.log'));
      expect(lines.at(-1)).toContain(`holding oci://${state.host}/modules/webapp:1.4.0`);

      expect(state.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(state.url).toBe(`http://${state.host}`);
      expect(await servesApi(state.url)).toBe(true);
      const pulled = await pullArtifact({
        registry: state.url,
        repository: module.repository,
        reference: module.version,
      });
      expect(pulled.digest).toBe(state.module?.digest);
      expect(pulled.manifest.annotations?.[versionAnnotation]).toBe('1.4.0');
      expect(pulled.layers.length).toBeGreaterThan(0);

      expect(registryEnv(state)).toEqual({
        REGISTRY_URL: state.url,
        REGISTRY_HOST: state.host,
        REGISTRY_MODULE: `oci://${state.host}/modules/webapp`,
        REGISTRY_MODULE_VERSION: '1.4.0',
        DEMO_REGISTRY: state.host,
      });
    },
  );

  it('is stopped through its process record', { timeout: 60_000 }, async () => {
    expect(state, 'the previous test started the registry').toBeDefined();
    const records = state?.processes ?? [];
    await stopProcesses(records);
    expect(records.some(isRunning)).toBe(false);
    await expect(servesApi(state?.url ?? 'http://127.0.0.1:1')).rejects.toThrow();
  });
});
