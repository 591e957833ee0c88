// Builds a Go main package from a module inside this repository and caches the binary
// outside it, keyed by name, version and a hash of the module's sources, so that a fresh
// machine builds once and later runs reuse the result.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface GoBinary {
  /** Name of the binary file, e.g. `kube-apiserver`. */
  name: string;
  /** Version the binary reports; part of the cache key. */
  version: string;
  /** Folder holding the go.mod, relative to the repository root. */
  moduleDir: string;
  /** Package to build, e.g. `k8s.io/kubernetes/cmd/kube-apiserver` or `./cmd/etcd`. */
  packagePath: string;
  ldflags?: string[];
  tags?: string[];
  /** Rough build time on a 2-core machine with an empty Go cache, for the progress message. */
  usualMinutes: number;
}

export type ProgressLog = (line: string) => void;

/** Folder under which built binaries are kept: $TIMONI_FLEET_CACHE or ~/.cache/timoni-fleet. */
export function cacheRoot(): string {
  return process.env.TIMONI_FLEET_CACHE ?? join(homedir(), '.cache', 'timoni-fleet');
}

function moduleSourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...moduleSourceFiles(path));
    else if (name.endsWith('.go') || name === 'go.mod' || name === 'go.sum') files.push(path);
  }
  return files;
}

/** Where the binary lives in the cache; it changes whenever the sources or flags change. */
export function cachedBinaryPath(binary: GoBinary): string {
  const hash = createHash('sha256');
  const moduleDir = join(repositoryRoot, binary.moduleDir);
  for (const file of moduleSourceFiles(moduleDir)) {
    hash.update(file.slice(moduleDir.length)).update('\0').update(readFileSync(file)).update('\0');
  }
  hash.update(JSON.stringify([binary.packagePath, binary.ldflags ?? [], binary.tags ?? []]));
  const key = `${binary.name}-${binary.version}-${hash.digest('hex').slice(0, 12)}`;
  return join(cacheRoot(), 'bin', key, binary.name);
}

function formatElapsed(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** Returns the path of the cached binary, building it first when it is missing. */
export async function ensureGoBinary(binary: GoBinary, log: ProgressLog): Promise<string> {
  const target = cachedBinaryPath(binary);
  if (existsSync(target)) return target;

  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.partial-${process.pid}`;
  const args = ['build', '-trimpath', '-o', partial];
  if (binary.ldflags?.length) args.push(`-ldflags=${binary.ldflags.join(' ')}`);
  if (binary.tags?.length) args.push(`-tags=${binary.tags.join(',')}`);
  args.push(binary.packagePath);

  const started = Date.now();
  log(
    `building ${binary.name} ${binary.version} from ${binary.moduleDir} (usually ~${binary.usualMinutes} min on 2 cores with an empty Go cache)`,
  );
  const heartbeat = setInterval(
    () => log(`  still building ${binary.name} (${formatElapsed(Date.now() - started)})`),
    30_000,
  );
  try {
    await new Promise<void>((resolvePromise, reject) => {
      execFile(
        'go',
        args,
        {
          cwd: join(repositoryRoot, binary.moduleDir),
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, CGO_ENABLED: '0' },
        },
        (error, _stdout, stderr) => {
          if (error)
            reject(
              new Error(`go build of ${binary.name} (${binary.packagePath} in ${binary.moduleDir}) failed:\n${stderr}`),
            );
          else resolvePromise();
        },
      );
    });
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  } finally {
    clearInterval(heartbeat);
  }
  log(`built ${binary.name} in ${formatElapsed(Date.now() - started)}: ${target}`);
  return target;
}
