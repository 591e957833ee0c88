#!/usr/bin/env node
// Builds the CUE engine's WebAssembly from the Go shim in src/cue/shim and writes
// src/cue/wasm/{cue.wasm.gz, cue.wasm.sha256, wasm_exec.js}.
//
// Usage:
//   node scripts/build-cue.mjs            build and write the three files
//   node scripts/build-cue.mjs --check    build into a temporary folder and fail when
//                                         the result differs from the committed files
//
// The build is reproducible: `go build -trimpath -buildvcs=false -ldflags="-s -w -buildid="`
// and a gzip done in Go (src/cue/shim/tools/gzip) with no name and no time in its
// header, so the same sources and the same Go release give the same bytes. The Go
// release is pinned (GOTOOLCHAIN): another local Go fetches it from the Go module proxy.
// Only Node's built-in modules are used.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shimDir = join(root, 'src', 'cue', 'shim');
const wasmDir = join(root, 'src', 'cue', 'wasm');
const check = process.argv.includes('--check');

const say = (message) => console.error(`build-cue: ${message}`);

/** The Go release the committed artifact is built with; change it together with a rebuild. */
const GO_RELEASE = 'go1.26.8';

function go(args, env) {
  return execFileSync('go', args, {
    cwd: shimDir,
    env: { ...process.env, GOFLAGS: '', GOTOOLCHAIN: GO_RELEASE, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 16 * 1024 * 1024,
  }).trim();
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Builds the three artifacts into `out` and returns the gzip's sha256 and the Go version. */
function build(out) {
  const goVersion = go(['env', 'GOVERSION']);
  const goroot = go(['env', 'GOROOT']);
  const wasm = join(out, 'cue.wasm');
  const started = Date.now();
  say(`building cue.wasm with ${goVersion} (about 2-4 minutes on 2 cores with an empty Go cache)`);
  go(['build', '-trimpath', '-buildvcs=false', '-ldflags=-s -w -buildid=', '-o', wasm, '.'], {
    GOOS: 'js',
    GOARCH: 'wasm',
    CGO_ENABLED: '0',
    GOWASM: '',
  });
  // The gzip tool runs on the host, so GOOS/GOARCH must not be inherited here.
  go(['run', './tools/gzip', wasm, join(out, 'cue.wasm.gz')], { CGO_ENABLED: '0' });
  rmSync(wasm);
  copyFileSync(join(goroot, 'lib', 'wasm', 'wasm_exec.js'), join(out, 'wasm_exec.js'));
  const digest = sha256(join(out, 'cue.wasm.gz'));
  writeFileSync(join(out, 'cue.wasm.sha256'), `${digest}  cue.wasm.gz\n`);
  say(`built in ${Math.round((Date.now() - started) / 1000)}s: sha256 ${digest}`);
  return { digest, goVersion };
}

function committedDigest() {
  const file = join(wasmDir, 'cue.wasm.sha256');
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8').split(/\s+/)[0];
}

const temp = mkdtempSync(join(tmpdir(), 'timoni-fleet-cue-'));
try {
  const { digest, goVersion } = build(temp);
  if (check) {
    const recorded = committedDigest();
    const problems = [];
    if (recorded !== digest) {
      problems.push(`cue.wasm.sha256 records ${recorded ?? '(missing)'} but a fresh build gives ${digest}`);
    }
    const committedGz = join(wasmDir, 'cue.wasm.gz');
    const actual = existsSync(committedGz) ? sha256(committedGz) : '(missing)';
    if (actual !== digest) {
      problems.push(`the committed cue.wasm.gz hashes to ${actual} but a fresh build gives ${digest}`);
    }
    const execJs = join(wasmDir, 'wasm_exec.js');
    if (!existsSync(execJs) || !readFileSync(execJs).equals(readFileSync(join(temp, 'wasm_exec.js')))) {
      problems.push(`wasm_exec.js differs from the one of ${goVersion}`);
    }
    if (problems.length > 0) {
      console.error(problems.join('\n'));
      console.error(
        `The committed CUE engine does not match its sources built with ${goVersion}: run \`npm run build:cue\` ` +
          '(with the Go release the artifact was built with) and commit src/cue/wasm/.',
      );
      process.exit(1);
    }
    console.log(`src/cue/wasm matches a fresh build (sha256 ${digest}, ${goVersion})`);
  } else {
    mkdirSync(wasmDir, { recursive: true });
    for (const name of ['cue.wasm.gz', 'cue.wasm.sha256', 'wasm_exec.js']) {
      copyFileSync(join(temp, name), join(wasmDir, name));
    }
    console.log(`wrote src/cue/wasm/cue.wasm.gz (sha256 ${digest}, ${goVersion}), cue.wasm.sha256 and wasm_exec.js`);
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
