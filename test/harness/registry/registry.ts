// Starts a real OCI registry (CNCF distribution v3) on 127.0.0.1 for one test or suite:
// its own process, port, storage folder and configuration, behind a request proxy that
// records requests, injects failures and (for token auth) serves the token endpoint.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHtpasswd, writeSigningCertificate, type RegistryUser } from './auth-files.js';
import { ensureBinaries } from './binaries.js';
import { freeLoopbackPort } from './free-port.js';
import { TokenSigner } from './jwt.js';
import { renderRegistryConfig, type RegistryAuthMode, type RegistryConfigInput } from './registry-config.js';
import { startRequestProxy, type FailureInjection, type RecordedRequest } from './request-proxy.js';
import { tokenService } from './token-server.js';

export type { RegistryAuthMode } from './registry-config.js';
export type { RegistryUser } from './auth-files.js';
export type { FailureInjection, RecordedRequest, RequestMatch } from './request-proxy.js';

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface StartRegistryOptions {
  auth: RegistryAuthMode;
  /** Accounts for `basic` and `token`; default one generated user with a random password. */
  users?: RegistryUser[];
  /** `token` only: hand out pull tokens to clients without credentials (a public registry). */
  anonymousPull?: boolean;
  /** `token` only: lifetime of issued tokens in seconds (default 300). */
  tokenLifetimeSeconds?: number;
}

export interface RegistryHandle {
  /** `http://127.0.0.1:PORT`, the proxy in front of the registry. */
  url: string;
  /** `127.0.0.1:PORT`, as it appears in `oci://` module URLs. */
  host: string;
  auth: RegistryAuthMode;
  /** The first user's credentials; undefined for `anonymous`. */
  credentials: RegistryCredentials | undefined;
  users: RegistryUser[];
  /** Every request that reached the proxy, in arrival order (live; see `clearRequests`). */
  requests: RecordedRequest[];
  clearRequests(): void;
  /** Makes the next `count` matching requests fail (connection reset or an HTTP status). */
  failNext(injection: FailureInjection): void;
  /** Registry process id and figures measured at start. */
  pid: number;
  startupMs: number;
  /** Resident memory of the registry process now, from /proc (Linux). */
  memoryRssBytes(): number;
  /** Folder holding config.yml, registry.log, storage/ and auth files; removed by stop(). */
  dir: string;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // A test run that dies without calling stop() must not leave registries behind.
  process.on('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

const setpriv = '/usr/bin/setpriv';

/**
 * Runs the command through util-linux's setpriv, which sets PR_SET_PDEATHSIG and then
 * execs it (same pid): if the test process dies without cleaning up, even by SIGKILL,
 * the kernel kills the registry too. Without setpriv the command runs as is.
 */
function withParentDeathSignal(command: string, args: string[]): [string, string[]] {
  if (!existsSync(setpriv)) return [command, args];
  return [setpriv, ['--pdeathsig', 'KILL', '--', command, ...args]];
}

function logTail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no registry log)';
  }
}

/** Resolves once the registry answers /v2/ (any status), rejects if it exits first or times out. */
function waitUntilServing(port: number, child: ChildProcess, logPath: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolveReady, reject) => {
    let settled = false;
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      reject(
        new Error(
          `registry exited before serving (code ${code}, signal ${signal}); last log lines:\n${logTail(logPath)}`,
        ),
      );
    };
    const onError = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(new Error(`registry could not be started: ${error.message}`));
    };
    child.once('exit', onExit);
    child.once('error', onError);
    const probe = () => {
      if (settled) return;
      const request = httpRequest(
        { host: '127.0.0.1', port, path: '/v2/', method: 'GET', timeout: 1000 },
        (response) => {
          response.resume();
          settled = true;
          child.off('exit', onExit);
          child.off('error', onError);
          resolveReady();
        },
      );
      request.on('timeout', () => request.destroy());
      request.on('error', () => {
        if (settled) return;
        if (Date.now() > deadline) {
          settled = true;
          child.off('exit', onExit);
          child.off('error', onError);
          reject(
            new Error(
              `registry on 127.0.0.1:${port} did not answer within ${timeoutMs} ms; last log lines:\n${logTail(logPath)}`,
            ),
          );
          return;
        }
        setTimeout(probe, 25);
      });
      request.end();
    };
    probe();
  });
}

function readRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  if (!match?.[1]) throw new Error(`no VmRSS line in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

function stopChild(child: ChildProcess): Promise<void> {
  // A child that never started has no pid and will not emit 'exit'.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolveStop) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolveStop();
    });
    child.kill('SIGTERM');
  });
}

/** Starts a registry; see RegistryHandle. Call `stop()` when done (afterAll). */
export async function startRegistry(options: StartRegistryOptions): Promise<RegistryHandle> {
  const binaries = await ensureBinaries((line) => process.stderr.write(`registry: ${line}\n`));
  const dir = await mkdtemp(join(tmpdir(), 'timoni-fleet-registry-'));
  const cleanups: Array<() => Promise<void>> = [() => rm(dir, { recursive: true, force: true })];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step();
  };

  try {
    const users =
      options.auth === 'anonymous'
        ? []
        : (options.users ?? [{ name: 'fleet', password: randomBytes(12).toString('hex') }]);
    if (options.auth !== 'anonymous' && users.length === 0)
      throw new Error(`startRegistry: auth ${options.auth} needs at least one user`);
    const service = 'timoni-fleet-test-registry';
    const issuer = 'timoni-fleet-test-token-issuer';

    let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
    if (options.auth === 'token') {
      const certificate = await writeSigningCertificate(binaries.helper, dir);
      handler = tokenService({
        signer: new TokenSigner(certificate.keyPem, certificate.certificatePem),
        issuer,
        service,
        users,
        anonymousPull: options.anonymousPull ?? false,
        expiresIn: options.tokenLifetimeSeconds ?? 300,
      });
    }
    const proxy = await startRequestProxy(handler);
    cleanups.push(() => proxy.close());
    const url = `http://127.0.0.1:${proxy.port}`;

    let auth: RegistryConfigInput['auth'] = { mode: 'anonymous' };
    if (options.auth === 'basic') {
      auth = {
        mode: 'basic',
        realm: 'timoni-fleet test registry',
        htpasswdPath: await writeHtpasswd(binaries.helper, dir, users),
      };
    } else if (options.auth === 'token') {
      auth = {
        mode: 'token',
        realm: `${url}/token`,
        service,
        issuer,
        rootCertBundle: join(dir, 'token-signing-cert.pem'),
      };
    }

    const storageDir = join(dir, 'storage');
    await mkdir(storageDir);
    const configPath = join(dir, 'config.yml');
    const logPath = join(dir, 'registry.log');
    installExitHook();

    // The port is free when picked but could be taken before the registry binds it: retry.
    for (let attempt = 1; ; attempt++) {
      const port = await freeLoopbackPort();
      await writeFile(
        configPath,
        renderRegistryConfig({
          listenAddress: `127.0.0.1:${port}`,
          publicUrl: url,
          storageDir,
          httpSecret: randomBytes(16).toString('hex'),
          auth,
        }),
      );
      const logFd = openSync(logPath, 'a');
      const started = Date.now();
      const [command, args] = withParentDeathSignal(binaries.registry, ['serve', configPath]);
      const child = spawn(command, args, { stdio: ['ignore', logFd, logFd], cwd: dir });
      closeSync(logFd);
      running.add(child);
      child.once('exit', () => running.delete(child));
      child.on('error', () => running.delete(child)); // reported by waitUntilServing
      cleanups.push(() => stopChild(child));
      try {
        await waitUntilServing(port, child, logPath, 30_000);
      } catch (error) {
        await stopChild(child);
        if (attempt < 3 && /address already in use/.test(logTail(logPath))) continue;
        throw error;
      }
      const startupMs = Date.now() - started;
      proxy.setUpstream(port);
      const pid = child.pid;
      if (pid === undefined) throw new Error('registry process has no pid');
      const first = users[0];

      let stopped: Promise<void> | undefined;
      return {
        url,
        host: `127.0.0.1:${proxy.port}`,
        auth: options.auth,
        credentials: first ? { username: first.name, password: first.password } : undefined,
        users,
        requests: proxy.requests,
        clearRequests: () => {
          proxy.requests.length = 0;
        },
        failNext: (injection) => proxy.failNext(injection),
        pid,
        startupMs,
        memoryRssBytes: () => readRss(pid),
        dir,
        stop: () => (stopped ??= cleanup()),
      };
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
}
