#!/usr/bin/env node
// Builds dist/'s JavaScript: the action bundle (dist/index.js) and the CLI bundle
// (dist/cli/index.js). The CUE engine beside them (dist/cue.wasm.gz, dist/native/<goos>-
// <goarch>/cue-shim.gz and their sha256 files, scripts/engine-artifacts.mjs) is built into
// dist/ by `npm run build:cue` and has no other copy: this build keeps those files where
// they are and never writes them (another --out gets none).
// Usage: node scripts/build.mjs [--out DIR]   (default: dist)
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINE_ARTIFACTS } from './engine-artifacts.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const out = resolve(root, outFlag >= 0 ? process.argv[outFlag + 1] : 'dist');
const ncc = join(root, 'node_modules', '.bin', 'ncc');

// Build beside the output and swap it in at the end, so a failed build leaves dist/ as it was.
const staging = mkdtempSync(join(dirname(out), '.build-'));
const entries = [
  { source: 'src/main.ts', dir: staging },
  { source: 'src/cli.ts', dir: join(staging, 'cli') },
];

try {
  for (const entry of entries) {
    execFileSync(ncc, ['build', entry.source, '-o', entry.dir, '--license', 'licenses.txt', '--quiet'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  }
} catch {
  rmSync(staging, { recursive: true, force: true });
  console.error('build failed: dist/ is left as it was');
  process.exit(1);
}

// The CLI bundle is package.json's `bin`: it must start with the shebang (ncc keeps the one
// of src/cli.ts; this makes sure of it) and be executable, for `npm install -g` and `npx`.
const cliBundle = join(staging, 'cli', 'index.js');
const shebang = '#!/usr/bin/env node\n';
const cliSource = readFileSync(cliBundle, 'utf8');
if (!cliSource.startsWith(shebang)) writeFileSync(cliBundle, shebang + cliSource);
chmodSync(cliBundle, 0o755);

// The engine artifacts already in the output move into the new build (renamed, not copied).
for (const artifact of ENGINE_ARTIFACTS) {
  if (!existsSync(join(out, artifact))) continue;
  mkdirSync(dirname(join(staging, artifact)), { recursive: true });
  renameSync(join(out, artifact), join(staging, artifact));
}
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
console.log(`built ${entries.map((e) => e.source).join(', ')} into ${out}`);
