// Pure parts of the fleet tooling: the env file format and the kubeconfig round trip.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatEnvFile, parseEnvFile, readEnvFile, setEnvEntries } from './env-file.js';
import { connectionFromKubeconfig, renderKubeconfig } from './kubeconfig.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-unit-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('env file', () => {
  it('round-trips entries, keeps values literally, ignores comments and blank lines', () => {
    const text = formatEnvFile({ KUBECONFIG: '/tmp/a b/kubeconfig', URL: 'https://127.0.0.1:6443/?x=1=2', EMPTY: '' }, 'header line');
    expect(text).toBe('# header line\nKUBECONFIG=/tmp/a b/kubeconfig\nURL=https://127.0.0.1:6443/?x=1=2\nEMPTY=\n');
    expect(parseEnvFile(`${text}\n\n# another comment\n`)).toEqual({ KUBECONFIG: '/tmp/a b/kubeconfig', URL: 'https://127.0.0.1:6443/?x=1=2', EMPTY: '' });
  });

  it('refuses bad keys and line breaks in values, naming the line', () => {
    expect(() => formatEnvFile({ 'bad-key': 'x' })).toThrow(/bad-key/);
    expect(() => formatEnvFile({ KEY: 'two\nlines' })).toThrow(/KEY contains a line break/);
    expect(() => parseEnvFile('A=1\nnot an entry\n', 'DIR/env')).toThrow('DIR/env, line 2: expected KEY=VALUE');
  });

  it('lets other parts add and replace entries, keeping the rest and the header', () => {
    const path = join(tempDir(), 'env');
    writeFileSync(path, formatEnvFile({ KUBECONFIG: '/k', FLEET_CLUSTERS: 'fleet-1' }, 'written by the fleet'));
    setEnvEntries(path, { REGISTRY_HOST: '127.0.0.1:5000', FLEET_CLUSTERS: 'fleet-1,fleet-2' });
    expect(readFileSync(path, 'utf8')).toBe('# written by the fleet\nKUBECONFIG=/k\nFLEET_CLUSTERS=fleet-1,fleet-2\nREGISTRY_HOST=127.0.0.1:5000\n');
    expect(readEnvFile(path).REGISTRY_HOST).toBe('127.0.0.1:5000');
    expect(() => readEnvFile(join(tempDir(), 'missing'))).toThrow(/cannot read the fleet env file/);
  });
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
    expect([connection.ca.toString(), connection.cert?.toString(), connection.key?.toString()]).toEqual(['CA FILE', 'CERT FILE', 'KEY FILE']);
    expect(() => connectionFromKubeconfig(text, 'b', join(dir, 'config'))).toThrow(/user token has no client certificate/);
    expect(() => connectionFromKubeconfig(text, 'c', join(dir, 'config'))).toThrow(/no cluster named "nope"/);
    expect(() => connectionFromKubeconfig(text, 'zzz', join(dir, 'config'))).toThrow(/no context named "zzz"/);
  });
});
