// Module pull + build time per instance, through the product's ModuleResolver (OCI pull,
// extraction, files read) and buildInstance (values merge, load, export of every apply
// set), against a real registry on loopback (test/harness/registry, anonymous).
//
// - cold: a fresh ModuleResolver and an empty cache folder each run, so the module is
//   pulled (manifest, every layer, extraction) before it is built;
// - warm: the same resolver again, as for the 2nd..Nth instance or cluster of a run: the
//   module is in memory, only the build is left.
// The CUE engine is loaded and warmed up once before (its cold start is in bench/cue.ts).
//
// Not measured: the native Timoni CLI's `bundle build` on the same input. Timoni's Go
// module is refused by the Go module proxy here, and fetched sources may not be built by
// committed scripts, so there is no timoni binary to compare with.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadCueEngine, type CueEngine } from '../src/cue/index.js';
import { buildInstance, DEFAULT_KUBE_VERSION } from '../src/module/build.js';
import { loadLocalModule, ModuleResolver, type ModuleRequest } from '../src/module/source.js';
import { pushTimoniModule, startRegistry, type RegistryHandle } from '../test/harness/registry/index.js';
import { repositoryRoot } from '../test/harness/support/go-binary.js';
import { median, type BenchResult } from './result.js';

const RUNS = 5;
const NATIVE_NOTE = 'native timoni bundle build: not measurable here (Go module proxy refuses Timoni)';

interface Workload {
  label: string;
  moduleDir: string;
  repository: string;
  values: Record<string, unknown>;
}

const workloads: Workload[] = [
  {
    label: 'webapp example',
    moduleDir: join(repositoryRoot, 'examples', 'modules', 'webapp'),
    repository: 'modules/webapp',
    values: { replicas: 2, message: 'bench' },
  },
  {
    label: 'k8s-app (full k8s schemas)',
    moduleDir: join(repositoryRoot, 'test', 'cue', 'fixtures', 'k8s-app'),
    repository: 'modules/k8s-app',
    values: { replicas: 3 },
  },
];

interface Timing {
  pullMs: number;
  buildMs: number;
  totalMs: number;
}

async function pullAndBuild(
  engine: CueEngine,
  resolver: ModuleResolver,
  request: ModuleRequest,
  values: Record<string, unknown>,
): Promise<Timing> {
  const started = performance.now();
  const module = await resolver.resolve(request);
  const pulled = performance.now();
  const built = await buildInstance(engine, module, {
    name: 'bench',
    namespace: 'apps',
    values: JSON.stringify(values),
    kubeVersion: DEFAULT_KUBE_VERSION,
  });
  const done = performance.now();
  if (built.sets.length === 0 || built.sets[0]?.objects.length === 0)
    throw new Error(`bench: ${request.url} built no objects`);
  return { pullMs: pulled - started, buildMs: done - pulled, totalMs: done - started };
}

function manifestGets(registry: RegistryHandle, from: number): number {
  return registry.requests.slice(from).filter((r) => r.method === 'GET' && r.path.includes('/manifests/')).length;
}

async function benchWorkload(
  engine: CueEngine,
  registry: RegistryHandle,
  work: string,
  workload: Workload,
): Promise<BenchResult[]> {
  const pushed = await pushTimoniModule({
    registry: registry.url,
    repository: workload.repository,
    tag: '1.0.0',
    moduleDir: workload.moduleDir,
    gitMetadata: false,
    latest: false,
  });
  const request: ModuleRequest = { url: pushed.url, version: '1.0.0', digest: pushed.digest };
  const cold: Timing[] = [];
  const warm: Timing[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const cacheDir = await mkdtemp(join(work, 'cache-'));
    const resolver = new ModuleResolver(engine, work, {
      cacheDir,
      env: {},
      dockerConfigDir: join(work, 'no-docker-config'),
    });
    const before = registry.requests.length;
    cold.push(await pullAndBuild(engine, resolver, request, workload.values));
    if (manifestGets(registry, before) !== 1)
      throw new Error(`bench: the cold run did not fetch ${workload.repository}'s manifest exactly once`);
    const afterCold = registry.requests.length;
    warm.push(await pullAndBuild(engine, resolver, request, workload.values));
    if (registry.requests.length !== afterCold)
      throw new Error(`bench: the warm run of ${workload.repository} reached the registry`);
    await rm(cacheDir, { recursive: true, force: true });
  }
  const layers = `${pushed.layers.length} layers, ${(pushed.layers.reduce((sum, layer) => sum + layer.gzip.length, 0) / 1024).toFixed(0)} KiB`;
  const coldPull = median(cold.map((t) => t.pullMs));
  const coldBuild = median(cold.map((t) => t.buildMs));
  return [
    {
      name: `module cold: pull + build per instance, ${workload.label}`,
      median_ms: median(cold.map((t) => t.totalMs)),
      runs: RUNS,
      note: `fresh resolver + empty cache; pull ${coldPull.toFixed(1)} ms (${layers}) + build ${coldBuild.toFixed(1)} ms; ${NATIVE_NOTE}`,
    },
    {
      name: `module warm: pull + build per instance, ${workload.label}`,
      median_ms: median(warm.map((t) => t.totalMs)),
      runs: RUNS,
      note: 'same resolver: module in memory, no registry request; native ratio: see the cold row',
    },
  ];
}

export async function benchModule(): Promise<BenchResult[]> {
  const engine = await loadCueEngine();
  const registry = await startRegistry({ auth: 'anonymous' });
  const work = await mkdtemp(join(tmpdir(), 'bench-module-'));
  try {
    // Warm the engine up on the local copies, so that the first cold run is not also the engine's first build.
    for (const workload of workloads) {
      const module = loadLocalModule('file://.', workload.moduleDir, engine);
      await buildInstance(engine, module, {
        name: 'bench',
        namespace: 'apps',
        values: JSON.stringify(workload.values),
        kubeVersion: DEFAULT_KUBE_VERSION,
      });
    }
    const results: BenchResult[] = [];
    for (const workload of workloads) results.push(...(await benchWorkload(engine, registry, work, workload)));
    return results;
  } finally {
    await registry.stop();
    await rm(work, { recursive: true, force: true });
  }
}
