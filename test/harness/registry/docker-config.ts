// Docker `config.json` files holding a test registry's credentials, for code that reads
// credentials the way docker, crane and timoni do (DOCKER_CONFIG points at the folder).
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface DockerConfigEntry {
  /** Registry host as in image references, e.g. `127.0.0.1:5000`. */
  host: string;
  username: string;
  password: string;
}

/**
 * Writes `<dir>/config.json` with an `auths` entry per registry (base64 `user:password`,
 * as `docker login` stores it without a credential helper). Returns the folder, the value
 * for DOCKER_CONFIG.
 */
export async function writeDockerConfig(dir: string, entries: DockerConfigEntry[]): Promise<string> {
  const auths: Record<string, { auth: string }> = {};
  for (const entry of entries) {
    if (entry.username.includes(':'))
      throw new Error(`docker config for ${entry.host}: the user name must not hold ':'`);
    auths[entry.host] = { auth: Buffer.from(`${entry.username}:${entry.password}`).toString('base64') };
  }
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'config.json'), `${JSON.stringify({ auths }, null, 2)}\n`, { mode: 0o600 });
  return dir;
}
