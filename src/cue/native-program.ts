// The native engine's program on disk. Unpacking `cue-shim.gz` (about 20 MB) costs a
// process 40-60 ms of CPU and 20-30 MiB of buffers at every start, so the program is
// unpacked once per artifact into the private cache folder (src/private-cache-dir.ts:
// ~/.cache/timoni-fleet/engines, RUNNER_TEMP in GitHub Actions), named by the sha256 of
// the artifact, written under a temporary name and renamed into place (a program that
// exists is complete). The folder's checks (private, this user's, no link) are what makes
// running a program from it safe: whoever can write there could run code as this user
// anyway. When the folder cannot be used, the program is unpacked into the engine's own
// private folder for this run, as before. Programs of other artifacts not used for 30
// days are removed, and so are temporary files a killed process left.
import { createHash, randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  lstatSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { preparePrivateCacheDir } from '../private-cache-dir.js';

/** Bytes per step when unpacking the program (larger steps: fewer round trips, same memory order). */
const UNPACK_CHUNK = 1024 * 1024;
const PROGRAM_PREFIX = 'cue-shim-';
const TEMPORARY_PREFIX = '.tmp-';
const UNUSED_PROGRAM_MS = 30 * 24 * 60 * 60 * 1000;
const STALE_TEMPORARY_MS = 60 * 60 * 1000;

export interface NativeProgram {
  path: string;
  /** Kept in the cache folder for later runs (else in the engine's folder, removed once it runs). */
  cached: boolean;
}

async function unpack(artifact: string, to: string): Promise<void> {
  try {
    await pipeline(
      createReadStream(artifact, { highWaterMark: UNPACK_CHUNK }),
      createGunzip({ chunkSize: UNPACK_CHUNK }),
      createWriteStream(to, { mode: 0o700, highWaterMark: UNPACK_CHUNK }),
    );
  } catch (error) {
    rmSync(to, { force: true });
    throw new Error(`cannot unpack the native CUE engine ${artifact}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * The sha256 of the artifact: from the `cue-shim.sha256` written beside it by the build
 * (scripts/build-cue.mjs, into dist/native/<platform>/), else computed (8 ms for
 * the 7 MB artifact, at every start).
 */
async function artifactDigest(artifact: string): Promise<string> {
  const recorded = await readFile(join(dirname(artifact), 'cue-shim.sha256'), 'utf8').catch(() => '');
  const digest = /^([0-9a-f]{64})\s+cue-shim\.gz\s*$/.exec(recorded)?.[1];
  if (digest && basename(artifact) === 'cue-shim.gz') return digest;
  return createHash('sha256')
    .update(await readFile(artifact))
    .digest('hex');
}

/** A program this user alone can change, ready to run. */
function usable(path: string): boolean {
  try {
    const info = lstatSync(path);
    const uid = typeof process.getuid === 'function' ? process.getuid() : info.uid;
    return info.isFile() && info.uid === uid && (info.mode & 0o022) === 0 && (info.mode & 0o100) !== 0 && info.size > 0;
  } catch {
    return false;
  }
}

function removeUnused(dir: string, keep: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === keep) continue;
    const limit = name.startsWith(TEMPORARY_PREFIX)
      ? STALE_TEMPORARY_MS
      : name.startsWith(PROGRAM_PREFIX)
        ? UNUSED_PROGRAM_MS
        : undefined;
    if (limit === undefined) continue;
    try {
      if (now - statSync(path).mtimeMs > limit) rmSync(path, { force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}

/**
 * The program of `artifact`, from the cache folder `cacheDir` (unpacked there first when
 * missing), or unpacked into `workdir` when there is no usable cache folder. `fresh`
 * replaces a cached program (one that failed to start).
 */
export async function nativeProgram(
  artifact: string,
  workdir: string,
  cacheDir: string | null,
  fresh = false,
): Promise<NativeProgram> {
  let dir: string | undefined;
  try {
    if (cacheDir !== null) dir = preparePrivateCacheDir(cacheDir, 'CUE engine cache folder');
  } catch {
    // No usable cache folder (not ours, open to others, not writable): unpack for this run.
  }
  if (dir === undefined) {
    const path = join(workdir, 'cue-shim');
    await unpack(artifact, path);
    return { path, cached: false };
  }
  const digest = await artifactDigest(artifact);
  const path = join(dir, `${PROGRAM_PREFIX}${digest}`);
  if (!fresh && usable(path)) {
    const now = new Date();
    utimesSync(path, now, now);
    return { path, cached: true };
  }
  const temporary = join(dir, `${TEMPORARY_PREFIX}${randomBytes(6).toString('hex')}`);
  await unpack(artifact, temporary);
  renameSync(temporary, path);
  removeUnused(dir, path);
  return { path, cached: true };
}
