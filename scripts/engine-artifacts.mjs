// The CUE engine's artifacts, named in one place for the scripts that write, keep and
// compare them. They have one copy, in dist/ (committed, where the action runs them):
//   dist/cue.wasm.gz, dist/cue.wasm.sha256                  the WebAssembly engine;
//   dist/native/<goos>-<goarch>/cue-shim.gz, cue-shim.sha256 the native programs.
// scripts/build-cue.mjs writes them (and `--check` compares them with a fresh build);
// scripts/build.mjs keeps them when it replaces the JavaScript bundles; scripts/check-dist.mjs
// leaves them to `build:cue --check`. The TypeScript runtime finds them in dist/ from the
// bundles and from the sources alike (src/cue/artifacts.ts). Go's wasm_exec.js is source:
// it stays in src/cue/wasm/ and is bundled into the JavaScript.

/** Every artifact: its folder under dist/, the Go target, the file name of the program. */
export const ENGINE_TARGETS = [
  { name: 'wasm', dir: '.', goos: 'js', goarch: 'wasm', file: 'cue.wasm' },
  { name: 'linux-amd64', dir: 'native/linux-amd64', goos: 'linux', goarch: 'amd64', file: 'cue-shim' },
  { name: 'linux-arm64', dir: 'native/linux-arm64', goos: 'linux', goarch: 'arm64', file: 'cue-shim' },
  { name: 'darwin-arm64', dir: 'native/darwin-arm64', goos: 'darwin', goarch: 'arm64', file: 'cue-shim' },
];

/** The files of one target, relative to dist/: the gzipped program and its sha256. */
export function targetFiles(target) {
  const prefix = target.dir === '.' ? '' : `${target.dir}/`;
  return [`${prefix}${target.file}.gz`, `${prefix}${target.file}.sha256`];
}

/** Every engine artifact, relative to dist/ (with forward slashes). */
export const ENGINE_ARTIFACTS = ENGINE_TARGETS.flatMap(targetFiles);
