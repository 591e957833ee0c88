// The fleet's kubeconfig: rendered with embedded credentials, read back per context.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contextAliases, connectionFromKubeconfig, renderKubeconfig, spreadContextNames } from './kubeconfig.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-unit-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('kubeconfig', () => {
  const entry = (n: number) => ({
    contextName: `fleet-${n}`,
    userName: `fleet-${n}-admin`,
    server: `https://127.0.0.1:${6440 + n}`,
    caCertPem: `CA ${n}`,
    clientCertPem: `CERT ${n}`,
    clientKeyPem: `KEY ${n}`,
  });

  it('renders one context per cluster and reads each back', () => {
    const text = renderKubeconfig([entry(1), entry(2)]);
    const current = connectionFromKubeconfig(text);
    expect(current.contextName).toBe('fleet-1');
    const second = connectionFromKubeconfig(text, 'fleet-2');
    expect(second.server).toBe('https://127.0.0.1:6442');
    expect(second.ca.toString()).toBe('CA 2');
    expect(second.cert?.toString()).toBe('CERT 2');
    expect(second.key?.toString()).toBe('KEY 2');
  });

  it('reads file references relative to the kubeconfig and names what is missing', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ca.crt'), 'CA FILE');
    writeFileSync(join(dir, 'c.crt'), 'CERT FILE');
    writeFileSync(join(dir, 'c.key'), 'KEY FILE');
    const text = `
apiVersion: v1
kind: Config
current-context: a
clusters: [{name: a, cluster: {server: "https://127.0.0.1:1", certificate-authority: ca.crt}}]
users: [{name: u, user: {client-certificate: c.crt, client-key: ${join(dir, 'c.key')}}}, {name: token, user: {token: abc}}]
contexts: [{name: a, context: {cluster: a, user: u}}, {name: b, context: {cluster: a, user: token}}, {name: c, context: {cluster: nope, user: u}}]
`;
    const connection = connectionFromKubeconfig(text, undefined, join(dir, 'config'));
    expect([connection.ca.toString(), connection.cert?.toString(), connection.key?.toString()]).toEqual([
      'CA FILE',
      'CERT FILE',
      'KEY FILE',
    ]);
    expect(() => connectionFromKubeconfig(text, 'b', join(dir, 'config'))).toThrow(
      /user token has no client certificate/,
    );
    expect(() => connectionFromKubeconfig(text, 'c', join(dir, 'config'))).toThrow(/no cluster named "nope"/);
    expect(() => connectionFromKubeconfig(text, 'zzz', join(dir, 'config'))).toThrow(/no context named "zzz"/);
  });

  it('adds aliases: more contexts per cluster, spread round-robin, each reaching its cluster as its admin', () => {
    const aliases = contextAliases(['fleet-1', 'fleet-2', 'fleet-3'], 17);
    const names = spreadContextNames(['fleet-1', 'fleet-2', 'fleet-3'], aliases);
    expect(names).toHaveLength(51);
    expect(new Set(names).size).toBe(51);
    expect(names.slice(0, 6)).toEqual(['fleet-1', 'fleet-2', 'fleet-3', 'fleet-1-2', 'fleet-2-2', 'fleet-3-2']);
    expect(names.at(-1)).toBe('fleet-3-17');
    const text = renderKubeconfig([entry(1), entry(2), entry(3)], undefined, aliases);
    // Credentials once per cluster, not once per context.
    expect(text.match(/client-key-data/g)).toHaveLength(3);
    const fiftieth = connectionFromKubeconfig(text, names[49]);
    expect(names[49]).toBe('fleet-2-17');
    expect(fiftieth.server).toBe('https://127.0.0.1:6442');
    expect(fiftieth.cert?.toString()).toBe('CERT 2');
    expect(connectionFromKubeconfig(text).contextName).toBe('fleet-1');
    expect(contextAliases(['fleet-1'], 1)).toEqual([]);
    expect(() => contextAliases(['fleet-1'], 0)).toThrow(/whole number/);
    expect(() => renderKubeconfig([entry(1)], undefined, [{ contextName: 'x', of: 'fleet-9' }])).toThrow(
      /names no context/,
    );
  });
});
