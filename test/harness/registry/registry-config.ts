// The distribution v3 configuration file for one test registry.
import { stringify } from 'yaml';

export type RegistryAuthMode = 'anonymous' | 'basic' | 'token';

export interface RegistryConfigInput {
  /** Where the registry process listens (127.0.0.1:port). */
  listenAddress: string;
  /** Public base URL the clients use (the request proxy). */
  publicUrl: string;
  storageDir: string;
  /** Secret for upload state HMACs. */
  httpSecret: string;
  auth:
    | { mode: 'anonymous' }
    | { mode: 'basic'; realm: string; htpasswdPath: string }
    | { mode: 'token'; realm: string; service: string; issuer: string; rootCertBundle: string };
}

/** Renders config.yml (documented at distribution.github.io/distribution/about/configuration/). */
export function renderRegistryConfig(input: RegistryConfigInput): string {
  const config: Record<string, unknown> = {
    version: 0.1,
    log: { level: 'info', formatter: 'text', fields: { service: 'registry' } },
    storage: {
      filesystem: { rootdirectory: input.storageDir },
      delete: { enabled: true },
      // Background upload purging only adds noise and CPU on a shared machine.
      maintenance: { uploadpurging: { enabled: false } },
    },
    http: {
      addr: input.listenAddress,
      // Location headers must point at the proxy, not at the registry's own port.
      host: input.publicUrl,
      secret: input.httpSecret,
      headers: { 'X-Content-Type-Options': ['nosniff'] },
    },
  };
  const auth = input.auth;
  if (auth.mode === 'basic') config.auth = { htpasswd: { realm: auth.realm, path: auth.htpasswdPath } };
  if (auth.mode === 'token') {
    config.auth = {
      token: { realm: auth.realm, service: auth.service, issuer: auth.issuer, rootcertbundle: auth.rootCertBundle },
    };
  }
  return stringify(config);
}
