#!/usr/bin/env node
// Builds dist/: the action bundle (dist/index.js), the CLI bundle (dist/cli/index.js)
// and the CUE engine beside them: its WebAssembly (dist/cue.wasm.gz) and its native
// programs (dist/native/<goos>-<goarch>/cue-shim.gz, src/cue/native-runtime.ts).
// Usage: node scripts/build.mjs [--out DIR]   (default: dist)
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

const wasm = join(root, 'src', 'cue', 'wasm', 'cue.wasm.gz');
if (existsSync(wasm)) {
  mkdirSync(staging, { recursive: true });
  copyFileSync(wasm, join(staging, 'cue.wasm.gz'));
}
const native = join(root, 'src', 'cue', 'native');
for (const platform of existsSync(native) ? readdirSync(native).sort() : []) {
  const program = join(native, platform, 'cue-shim.gz');
  if (!existsSync(program)) continue;
  mkdirSync(join(staging, 'native', platform), { recursive: true });
  copyFileSync(program, join(staging, 'native', platform, 'cue-shim.gz'));
  // Its digest names the unpacked program in the cache folder (src/cue/native-program.ts).
  copyFileSync(join(native, platform, 'cue-shim.sha256'), join(staging, 'native', platform, 'cue-shim.sha256'));
}
rmSync(out, { recursive: true, force: true });
renameSync(staging, out);
console.log(`built ${entries.map((e) => e.source).join(', ')} into ${out}`);
