// One cold run of the CUE engine, started by bench/cue.ts in a fresh process: times
// start-up (instantiate to the first result) and a load + export of the Kubernetes
// module fixture, and prints both as JSON on standard error.
import { performance } from 'node:perf_hooks';
import { loadCueEngine } from '../src/cue/index.js';
import { readFixture } from '../test/cue/fixture-files.js';
import { K8S_MODULE_LOAD } from './cue-workload.js';

const files = readFixture('k8s-app');
const started = performance.now();
const engine = await loadCueEngine();
const first = engine.compile('a: 1');
first.toJSON();
const firstResult = performance.now();
const root = engine.load({ files, ...K8S_MODULE_LOAD });
const objects = root.lookup('timoni.apply.app').toJSON() as unknown[];
const exported = performance.now();
if (objects.length !== 2) throw new Error(`expected 2 objects from the module, got ${objects.length}`);
process.stderr.write(
  `${JSON.stringify({ startMs: firstResult - started, loadExportMs: exported - firstResult, totalMs: exported - started })}\n`,
);
