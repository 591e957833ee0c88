// A self-signed TLS certificate for test servers (an https registry front, an https
// target behind a proxy), made by the openssl command line: ECDSA P-256, valid one day,
// for the given DNS names and 127.0.0.1.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificate {
  /** PEM certificate, also the CA to trust (self-signed). */
  cert: string;
  key: string;
}

export function selfSignedCertificate(dnsNames: string[]): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'test-cert-'));
  try {
    const san = [...dnsNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${dnsNames[0] ?? 'localhost'}`,
        '-addext',
        `subjectAltName=${san}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
