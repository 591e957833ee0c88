// Files the registry's access controllers read: an htpasswd file (basic auth) and the
// token issuer's key and certificate (bearer tokens). Produced by the Go helper, since
// the registry accepts bcrypt only and Node.js cannot create X.509 certificates.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface RegistryUser {
  name: string;
  password: string;
}

function runHelper(helper: string, args: string[], stdin: string): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = execFile(helper, args, { timeout: 60_000 }, (error, _stdout, stderr) => {
      // The helper never prints input, so its stderr is safe to show.
      if (error) reject(new Error(`registry-helper ${args[0]} failed: ${stderr.trim() || error.message}`));
      else resolveRun();
    });
    child.stdin?.end(stdin);
  });
}

/** Writes `<dir>/htpasswd` with a bcrypt hash per user; passwords travel over stdin only. */
export async function writeHtpasswd(helper: string, dir: string, users: RegistryUser[]): Promise<string> {
  for (const user of users) {
    if (!/^[^:\s]+$/.test(user.name))
      throw new Error(`registry user name ${JSON.stringify(user.name)} is empty or holds ':' or whitespace`);
    if (/[\r\n]/.test(user.password)) throw new Error(`the password of registry user ${user.name} holds a line break`);
  }
  const path = join(dir, 'htpasswd');
  await runHelper(helper, ['htpasswd', path], users.map((user) => `${user.name}:${user.password}\n`).join(''));
  return path;
}

export interface SigningCertificate {
  keyPath: string;
  certificatePath: string;
  /** PKCS#8 PEM of the ECDSA P-256 private key. */
  keyPem: string;
  /** PEM of the self-signed certificate the registry trusts (token.rootcertbundle). */
  certificatePem: string;
}

/** Creates the token issuer's P-256 key and self-signed certificate in `dir`. */
export async function writeSigningCertificate(helper: string, dir: string): Promise<SigningCertificate> {
  const keyPath = join(dir, 'token-signing-key.pem');
  const certificatePath = join(dir, 'token-signing-cert.pem');
  await runHelper(helper, ['signing-cert', keyPath, certificatePath], '');
  return {
    keyPath,
    certificatePath,
    keyPem: await readFile(keyPath, 'utf8'),
    certificatePem: await readFile(certificatePath, 'utf8'),
  };
}
