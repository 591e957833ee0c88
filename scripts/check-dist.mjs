#!/usr/bin/env node
// Fails when the committed dist/ differs from a fresh build of src/ (`npm run build`). The
// CUE engine's artifacts in dist/ (scripts/engine-artifacts.mjs) are not made by that build:
// they must be there, and `npm run build:cue -- --check` compares them with a fresh build of
// src/cue/shim.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINE_ARTIFACTS } from './engine-artifacts.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const fresh = mkdtempSync(join(tmpdir(), 'timoni-fleet-dist-'));

function listFiles(dir) {
  const files = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...listFiles(path));
    else files.push(path);
  }
  return files;
}

try {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--out', fresh], { stdio: 'inherit' });
  const committed = join(root, 'dist');
  const engine = new Set(ENGINE_ARTIFACTS.map((file) => join(file)));
  const want = new Set(listFiles(fresh).map((f) => relative(fresh, f)));
  const have = new Set(
    listFiles(committed)
      .map((f) => relative(committed, f))
      .filter((f) => !engine.has(f)),
  );
  const problems = [];
  for (const file of engine)
    if (!existsSync(join(committed, file))) problems.push(`missing from dist/: ${file} (run \`npm run build:cue\`)`);
  for (const file of want) {
    if (!have.has(file)) problems.push(`missing from dist/: ${file}`);
    else if (!readFileSync(join(fresh, file)).equals(readFileSync(join(committed, file))))
      problems.push(`differs from a fresh build: dist/${file}`);
  }
  for (const file of have) if (!want.has(file)) problems.push(`not produced by the build: dist/${file}`);
  if (problems.length > 0) {
    console.error(problems.join('\n'));
    console.error('dist/ is stale: run `npm run build` and commit dist/.');
    process.exit(1);
  }
  console.log(`dist/ matches a fresh build (${want.size} files; and has the ${engine.size} CUE engine files)`);
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
