// `timoni-fleet build -o yaml` prints what `timoni bundle build` prints, byte for byte:
// compared with the output of the Timoni CLI v0.33.0 on the same bundle
// (fixtures/timoni-output/, captured by hand), with and without --mask-secrets.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { maskSecret } from '../../src/kube/mask.js';
import { runCliCaptured } from './run-cli.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const timoniOutput = (name: string) => readFileSync(join(fixtures, 'timoni-output', name), 'utf8');

describe('build prints what Timoni v0.33.0 prints', () => {
  it('as timoni bundle build', async () => {
    const result = await runCliCaptured(['build', '-f', 'fidelity-bundle.cue'], { cwd: fixtures });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(timoniOutput('fidelity-build.yaml'));
    // The YAML 1.1 words are quoted, so that kubectl reads strings back.
    expect(result.stdout).toContain('  enabled: "yes"\n  legacy: "on"\n');
  });

  it('as timoni bundle build --mask-secrets', async () => {
    const result = await runCliCaptured(['build', '-f', 'fidelity-bundle.cue', '--mask-secrets'], { cwd: fixtures });
    expect(result.stdout).toBe(timoniOutput('fidelity-build-masked.yaml'));
    expect(result.stdout).not.toContain('cGFzcw==');
    expect(result.stdout).not.toContain('not-a-secret-default');
  });

  it('masks Secrets in JSON output too, and nothing without the flag', async () => {
    const secretOf = async (extra: string[]) => {
      const result = await runCliCaptured(['build', '-f', 'fidelity-bundle.cue', '-o', 'json', ...extra], { cwd: fixtures });
      const document = JSON.parse(result.stdout) as { clusters: Array<{ instances: Array<{ sets: Array<{ objects: Array<{ kind: string; data?: unknown; stringData?: unknown }> }> }> }> };
      return document.clusters[0]?.instances[0]?.sets[0]?.objects.find((o) => o.kind === 'Secret');
    };
    expect(await secretOf(['--mask-secrets'])).toMatchObject({ data: { password: '***' }, stringData: { token: '***' } });
    expect(await secretOf([])).toMatchObject({ data: { password: 'cGFzcw==' }, stringData: { token: 'not-a-secret-default' } });
  });
});

describe('maskSecret as build --mask-secrets uses it (Timoni internal/mask SecretData)', () => {
  const secret = (extra: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, ...extra });

  it('masks every data and stringData entry without touching the input', () => {
    const input = secret({ data: { a: 'YQ==', b: 'Yg==' }, stringData: { c: 'c' } });
    expect(maskSecret(input)).toEqual(secret({ data: { a: '***', b: '***' }, stringData: { c: '***' } }));
    expect(input.data).toEqual({ a: 'YQ==', b: 'Yg==' });
  });

  it('masks a data field that is not a map as a whole, and compares the kind without case', () => {
    expect(maskSecret({ apiVersion: 'v1', kind: 'secret', data: 'not-a-map', stringData: ['a'] })).toEqual({ apiVersion: 'v1', kind: 'secret', data: '***', stringData: '***' });
  });

  it('leaves other kinds and other API versions as they are', () => {
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } };
    expect(maskSecret(configMap)).toBe(configMap);
    const other = { apiVersion: 'example.com/v1', kind: 'Secret', data: { a: 'b' } };
    expect(maskSecret(other)).toBe(other);
  });
});
