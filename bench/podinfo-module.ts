// The podinfo-shaped module of the benchmarks (test/module/fixtures/podinfo-shaped),
// assembled in a folder of its own: the fixture keeps only the Kubernetes schemas that
// test/cue/fixtures/k8s-app does not have (batch/v1); the others are copied from there
// (core/v1, apps/v1, apimachinery: the same generated files).
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '../test/harness/support/go-binary.js';

const FIXTURE = join(repositoryRoot, 'test', 'module', 'fixtures', 'podinfo-shaped');
const SCHEMAS = join(repositoryRoot, 'test', 'cue', 'fixtures', 'k8s-app', 'cue.mod', 'gen', 'k8s.io');

/** Writes the whole module into a new temporary folder and returns its path. */
export function podinfoShapedModule(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'timoni-fleet-podinfo-')), 'podinfo');
  cpSync(FIXTURE, dir, { recursive: true, filter: (source) => !source.endsWith('README.md') });
  for (const part of ['api/core', 'api/apps', 'apimachinery']) {
    cpSync(join(SCHEMAS, part), join(dir, 'cue.mod', 'gen', 'k8s.io', part), { recursive: true });
  }
  return dir;
}
