// The env file format: KEY=VALUE lines, literal values, entries added by other parts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatEnvFile, parseEnvFile, readEnvFile, setEnvEntries } from './env-file.js';

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
    const text = formatEnvFile(
      { KUBECONFIG: '/tmp/a b/kubeconfig', URL: 'https://127.0.0.1:6443/?x=1=2', EMPTY: '' },
      'header line',
    );
    expect(text).toBe('# header line\nKUBECONFIG=/tmp/a b/kubeconfig\nURL=https://127.0.0.1:6443/?x=1=2\nEMPTY=\n');
    expect(parseEnvFile(`${text}\n\n# another comment\n`)).toEqual({
      KUBECONFIG: '/tmp/a b/kubeconfig',
      URL: 'https://127.0.0.1:6443/?x=1=2',
      EMPTY: '',
    });
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
    expect(readFileSync(path, 'utf8')).toBe(
      '# written by the fleet\nKUBECONFIG=/k\nFLEET_CLUSTERS=fleet-1,fleet-2\nREGISTRY_HOST=127.0.0.1:5000\n',
    );
    expect(readEnvFile(path).REGISTRY_HOST).toBe('127.0.0.1:5000');
    expect(() => readEnvFile(join(tempDir(), 'missing'))).toThrow(/cannot read the fleet env file/);
  });
});
