// The fleet's OCI registry, started by `npm run fleet -- up` beside the clusters: one CNCF
// distribution process (anonymous, plain HTTP on 127.0.0.1), detached like the clusters'
// processes and recorded in fleet.json, so that it outlives `up` and `down` stops it. It
// holds the example module (examples/modules/webapp) at the version examples/bundle.cue
// names, and the env file gets the variable that bundle reads for the registry host
// (DEMO_REGISTRY), so that `timoni-fleet diff -f examples/bundle.cue -r examples/runtime.cue
// --runtime-env DEMO_REGISTRY` works against the fleet as the README shows.
//
// Unlike test/harness/registry's `startRegistry` (a registry per test suite behind an in-process
// request proxy, gone with the test process), nothing of this one lives in the process
// that started it.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { EnvEntries } from './env-file.js';
import { freePorts, loopback } from './ports.js';
import { startProcess, stopProcesses, type ProcessRecord } from './processes.js';
import { portTakenHint, waitForComponent } from './wait-for-component.js';
import { ensureGoBinary, repositoryRoot, type ProgressLog } from '../support/go-binary.js';
import { registryBinary } from '../registry/binaries.js';
import { renderRegistryConfig } from '../registry/registry-config.js';
import { pushTimoniModule } from '../registry/timoni-module.js';

/** The module examples/bundle.cue uses, as read from that file. */
export interface ExampleModule {
  /** Absolute path of examples/bundle.cue. */
  bundlePath: string;
  /** The module's source folder, examples/modules/<name>. */
  moduleDir: string;
  /** Repository path inside the registry, e.g. `modules/webapp`. */
  repository: string;
  /** `module.version` in the bundle, e.g. `1.4.0`: the tag pushed. */
  version: string;
  /** The environment variable whose value the bundle takes as the registry host, e.g. `DEMO_REGISTRY`. */
  registryVariable: string;
}

/** The fleet's registry as fleet.json records it and tests see it. */
export interface RegistryState {
  /** DIR/registry: config.yml, storage/, registry.log. */
  dir: string;
  /** `127.0.0.1:PORT`, as in `oci://` module URLs. */
  host: string;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Empty until the process was started. */
  processes: ProcessRecord[];
  /** The example module once pushed, and the variable its bundle reads for the registry host. */
  module?: { url: string; version: string; digest: string; registryVariable: string };
}

function matchOne(text: string, pattern: RegExp, what: string, path: string): string {
  const found = [...text.matchAll(pattern)];
  const value = found[0]?.[1];
  if (found.length !== 1 || value === undefined) {
    throw new Error(
      `${path}: expected exactly one ${what} (pattern ${pattern.source}), found ${found.length}; the fleet's registry reads the example module from it`,
    );
  }
  return value;
}

/**
 * Reads, from examples/bundle.cue, which module it uses and which environment variable
 * names the registry: `_registry: ... @timoni(runtime:string:NAME)`, then one instance with
 * `url: "oci://\(_registry)/REPOSITORY"` and `version: "X.Y.Z"`. A plain text reading, so
 * that starting the fleet needs no CUE engine; it fails with the file named when the
 * bundle is written another way.
 */
export function exampleModule(root: string = repositoryRoot): ExampleModule {
  const bundlePath = join(root, 'examples', 'bundle.cue');
  const text = readFileSync(bundlePath, 'utf8');
  const registryVariable = matchOne(
    text,
    /_registry:[^\n]*@timoni\(runtime:string:([A-Z_][A-Z0-9_]*)\)/g,
    'registry attribute `_registry: ... @timoni(runtime:string:NAME)`',
    bundlePath,
  );
  const repository = matchOne(
    text,
    /url:\s*"oci:\/\/\\\(_registry\)\/([a-z0-9._/-]+)"/g,
    'module url `"oci://\\(_registry)/REPOSITORY"`',
    bundlePath,
  );
  const version = matchOne(text, /version:\s*"([^"]+)"/g, 'module version', bundlePath);
  const moduleDir = join(root, 'examples', 'modules', repository.slice(repository.lastIndexOf('/') + 1));
  return { bundlePath, moduleDir, repository, version, registryVariable };
}

/** GET /v2/ answers 200: the registry serves (anonymous access, so no 401). Rejects when it does not answer. */
export function servesApi(url: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v2/`, { timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}/v2/ did not answer within 2 s`)));
    req.on('error', reject);
    req.end();
  });
}

export interface StartFleetRegistryOptions {
  /** The registry's own folder (DIR/registry); created, emptied first. */
  dir: string;
  log: ProgressLog;
  /** Called whenever the state changes (process started, module pushed), so that it can be recorded and stopped. */
  onChange: (state: RegistryState) => void;
  /** The module to push; examples/bundle.cue's unless given. */
  module?: ExampleModule;
}

/** Starts the registry and pushes the example module to it; on failure stops what it started. */
export async function startFleetRegistry(options: StartFleetRegistryOptions): Promise<RegistryState> {
  const module = options.module ?? exampleModule();
  const binary = await ensureGoBinary(registryBinary, options.log);
  const started = Date.now();
  rmSync(options.dir, { recursive: true, force: true });
  const storageDir = join(options.dir, 'storage');
  mkdirSync(storageDir, { recursive: true });
  const configPath = join(options.dir, 'config.yml');

  let state: RegistryState | undefined;
  try {
    for (let attempt = 1; ; attempt += 1) {
      const [port] = (await freePorts(1)) as [number];
      const url = `http://${loopback}:${port}`;
      state = { dir: options.dir, host: `${loopback}:${port}`, url, processes: [] };
      writeFileSync(
        configPath,
        renderRegistryConfig({
          listenAddress: state.host,
          publicUrl: url,
          storageDir,
          httpSecret: randomBytes(16).toString('hex'),
          auth: { mode: 'anonymous' },
        }),
      );
      const record = startProcess({
        component: 'registry',
        binary,
        args: ['serve', configPath],
        logPath: join(options.dir, 'registry.log'),
        marker: configPath,
      });
      state.processes.push(record);
      options.onChange(state);
      try {
        await waitForComponent(record, () => servesApi(url), {
          description: `the registry to answer ${url}/v2/`,
          timeoutMs: 30_000,
        });
        break;
      } catch (error) {
        await stopProcesses([record]);
        state.processes = [];
        options.onChange(state);
        if (attempt >= 3 || !(error as Error).message.includes(portTakenHint)) throw error;
        options.log(`registry: a port was taken by another process meanwhile; starting again on another port`);
      }
    }
    const pushed = await pushTimoniModule({
      registry: state.url,
      repository: module.repository,
      tag: module.version,
      moduleDir: module.moduleDir,
    });
    state.module = {
      url: pushed.url,
      version: module.version,
      digest: pushed.digest,
      registryVariable: module.registryVariable,
    };
    options.onChange(state);
    options.log(
      `registry ${state.url} ready in ${((Date.now() - started) / 1000).toFixed(1)}s, holding ${pushed.url}:${module.version} (${pushed.digest})`,
    );
    return state;
  } catch (error) {
    if (state) await stopProcesses(state.processes);
    throw new Error(`starting the fleet's registry in ${options.dir} failed: ${(error as Error).message}`);
  }
}

/**
 * The registry's env file entries: REGISTRY_URL, REGISTRY_HOST, REGISTRY_MODULE (the
 * example module's `oci://` URL), REGISTRY_MODULE_VERSION, and the variable the example
 * bundle reads for the registry host (DEMO_REGISTRY).
 */
export function registryEnv(state: RegistryState): EnvEntries {
  const env: EnvEntries = { REGISTRY_URL: state.url, REGISTRY_HOST: state.host };
  if (state.module) {
    env.REGISTRY_MODULE = state.module.url;
    env.REGISTRY_MODULE_VERSION = state.module.version;
    env[state.module.registryVariable] = state.host;
  }
  return env;
}
