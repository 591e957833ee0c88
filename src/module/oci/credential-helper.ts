// Runs a docker credential helper (`docker-credential-<name> get`) as the docker CLI does:
// the server URL on stdin, `{"ServerURL","Username","Secret"}` on stdout. A missing binary,
// a timeout and a failure each give a clear error; "credentials not found" gives undefined.
import { spawn } from 'node:child_process';

export interface HelperCredentials {
  username: string;
  secret: string;
}

export interface HelperOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

const MAX_OUTPUT = 1024 * 1024;

export async function runCredentialHelper(name: string, serverUrl: string, origin: string, options: HelperOptions = {}): Promise<HelperCredentials | undefined> {
  const binary = `docker-credential-${name}`;
  if (!/^[A-Za-z0-9._-]+$/.test(name)) throw new Error(`credential helper name ${JSON.stringify(name)} (${origin}) is not a plain name`);
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['get'], { env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (action: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      action();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new Error(`credential helper ${binary} (${origin}) did not answer within ${timeoutMs} ms`)));
    }, timeoutMs);
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) {
        child.kill('SIGKILL');
        finish(() => reject(new Error(`credential helper ${binary} (${origin}) wrote more than ${MAX_OUTPUT} bytes`)));
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    child.stdin.on('error', () => undefined); // a helper that exits without reading stdin
    child.on('error', (error: NodeJS.ErrnoException) => {
      finish(() =>
        reject(
          error.code === 'ENOENT'
            ? new Error(`credential helper ${binary} (${origin}) is not installed: no ${binary} in PATH`)
            : new Error(`credential helper ${binary} (${origin}) could not be started: ${error.message}`),
        ),
      );
    });
    child.on('close', (code, signal) => {
      const out = Buffer.concat(stdout).toString('utf8').trim();
      if (code !== 0) {
        if (/credentials not found/i.test(out)) {
          finish(() => resolve(undefined));
          return;
        }
        // The helper's own words are shown (first line only); the caller redacts known secrets.
        const said = (Buffer.concat(stderr).toString('utf8').trim() || out).split('\n')[0]?.slice(0, 200) ?? '';
        finish(() => reject(new Error(`credential helper ${binary} (${origin}) failed (${signal ?? `exit ${code}`})${said ? `: ${said}` : ''}`)));
        return;
      }
      try {
        const parsed = JSON.parse(out) as { Username?: unknown; Secret?: unknown };
        if (typeof parsed.Secret !== 'string') throw new Error('no Secret');
        finish(() => resolve({ username: typeof parsed.Username === 'string' ? parsed.Username : '', secret: parsed.Secret as string }));
      } catch {
        finish(() => reject(new Error(`credential helper ${binary} (${origin}) printed something that is not {"Username","Secret"} JSON`)));
      }
    });
    child.stdin.end(serverUrl);
  });
}
