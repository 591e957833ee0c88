#!/usr/bin/env node
// Builds the CUE engine from the Go shim in src/cue/shim into dist/, where its one copy lives
// (committed; scripts/engine-artifacts.mjs names the files):
// - dist/{cue.wasm.gz, cue.wasm.sha256}: the WebAssembly engine;
// - dist/native/<goos>-<goarch>/{cue-shim.gz, cue-shim.sha256}: the same shim as a native
//   program for linux-amd64, linux-arm64 and darwin-arm64 (src/cue/native-runtime.ts
//   prefers it where it runs; the WebAssembly stays the fallback);
// - src/cue/wasm/wasm_exec.js: Go's JavaScript glue of the same Go release, source that
//   the bundles include.
// `npm run build` (scripts/build.mjs) keeps these files in dist/ and never copies them.
//
// Usage:
//   node scripts/build-cue.mjs                      build and write every artifact
//   node scripts/build-cue.mjs --check              build into a temporary folder and fail
//                                                   when any artifact differs from dist/'s
//   node scripts/build-cue.mjs --target linux-amd64 build (or check) only the named targets
//                                                   (comma-separated: wasm, linux-amd64, ...)
//
// The builds are reproducible: `go build -trimpath -buildvcs=false -ldflags="-s -w -buildid="`
// with CGO_ENABLED=0, and a gzip done in Go (src/cue/shim/tools/gzip) with no name and no
// time in its header, so the same sources and the same Go release give the same bytes. The
// Go release is pinned (GOTOOLCHAIN): another local Go fetches it from the Go module proxy.
// Only Node's built-in modules are used.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINE_TARGETS, targetFiles } from './engine-artifacts.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shimDir = join(root, 'src', 'cue', 'shim');
const check = process.argv.includes('--check');

const say = (message) => console.error(`build-cue: ${message}`);

/** The Go release the artifacts are built with; change it together with a rebuild. */
const GO_RELEASE = 'go1.26.8';

const dist = join(root, 'dist');
/** Go's wasm_exec.js, written beside the sources that import it. */
const wasmExec = join(root, 'src', 'cue', 'wasm', 'wasm_exec.js');

/** Every artifact: where it goes under dist/, the Go target, the file name of the program. */
const TARGETS = ENGINE_TARGETS.map((target) => ({ ...target, dir: join(dist, target.dir) }));

function selectedTargets() {
  const flag = process.argv.indexOf('--target');
  if (flag < 0) return TARGETS;
  const names = (process.argv[flag + 1] ?? '').split(',').filter(Boolean);
  const unknown = names.filter((n) => !TARGETS.some((t) => t.name === n));
  if (names.length === 0 || unknown.length > 0) {
    console.error(
      `--target takes a comma-separated list of ${TARGETS.map((t) => t.name).join(', ')}; got ${JSON.stringify(process.argv[flag + 1] ?? '')}`,
    );
    process.exit(2);
  }
  return TARGETS.filter((t) => names.includes(t.name));
}

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

/** What a target's build gives: each file's name in the build folder and where it goes in the tree. */
function artifactPlaces(target) {
  const places = targetFiles(target).map((file) => ({ name: basename(file), path: join(target.dir, basename(file)) }));
  if (target.goos === 'js') places.push({ name: 'wasm_exec.js', path: wasmExec });
  return places;
}

/** Builds one target into `out`; returns the gzip's sha256. */
function build(target, out, goVersion) {
  mkdirSync(out, { recursive: true });
  const program = join(out, target.file);
  const started = Date.now();
  say(`building ${target.name} with ${goVersion} (1-4 minutes on 2 cores with an empty Go cache)`);
  go(['build', '-trimpath', '-buildvcs=false', '-ldflags=-s -w -buildid=', '-o', program, '.'], {
    GOOS: target.goos,
    GOARCH: target.goarch,
    CGO_ENABLED: '0',
    GOWASM: '',
    GOARM64: '',
    GOAMD64: '',
  });
  // The gzip tool runs on the host, so GOOS/GOARCH must not be inherited here.
  go(['run', './tools/gzip', program, join(out, `${target.file}.gz`)], { CGO_ENABLED: '0' });
  rmSync(program);
  if (target.goos === 'js')
    copyFileSync(join(go(['env', 'GOROOT']), 'lib', 'wasm', 'wasm_exec.js'), join(out, 'wasm_exec.js'));
  const digest = sha256(join(out, `${target.file}.gz`));
  writeFileSync(join(out, `${target.file}.sha256`), `${digest}  ${target.file}.gz\n`);
  say(`${target.name} built in ${Math.round((Date.now() - started) / 1000)}s: sha256 ${digest}`);
  return digest;
}

/** What differs between a fresh build in `fresh` and the tree's files of `target`. */
function differences(target, fresh) {
  const problems = [];
  for (const { name, path: have } of artifactPlaces(target)) {
    const where = relative(root, have);
    if (!existsSync(have)) problems.push(`${where} is missing`);
    else if (!readFileSync(have).equals(readFileSync(join(fresh, name)))) {
      problems.push(
        name.endsWith('.gz')
          ? `${where} hashes to ${sha256(have)} but a fresh build gives ${sha256(join(fresh, name))}`
          : `${where} differs from a fresh build`,
      );
    }
  }
  return problems;
}

const temp = mkdtempSync(join(tmpdir(), 'timoni-fleet-cue-'));
try {
  const goVersion = go(['env', 'GOVERSION']);
  const problems = [];
  for (const target of selectedTargets()) {
    const out = join(temp, target.name);
    const digest = build(target, out, goVersion);
    if (check) {
      problems.push(...differences(target, out));
      continue;
    }
    for (const { name, path } of artifactPlaces(target)) {
      mkdirSync(dirname(path), { recursive: true });
      copyFileSync(join(out, name), path);
    }
    console.log(`wrote ${relative(root, target.dir)}/${target.file}.gz (sha256 ${digest}, ${goVersion})`);
  }
  if (check) {
    if (problems.length > 0) {
      console.error(problems.join('\n'));
      console.error(
        `The CUE engine artifacts do not match their sources built with ${goVersion}: run \`npm run build:cue\` ` +
          '(with the Go release the artifacts were built with) and commit dist/cue.wasm.*, dist/native/ and src/cue/wasm/wasm_exec.js.',
      );
      process.exit(1);
    }
    console.log(
      `the CUE engine artifacts match a fresh build (${selectedTargets()
        .map((t) => t.name)
        .join(', ')}; ${goVersion})`,
    );
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
