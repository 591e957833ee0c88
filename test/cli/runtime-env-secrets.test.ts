// The CLI offers runtime attributes what the action offers (issue 22, item 3): a variable
// whose value holds a secret of the run (here the kubeconfig text itself) or a URL with a
// password is withheld under --runtime-from-env and named in the log (never its value), and
// listing one in --runtime-env is refused. Through `node dist/cli/index.js` on the fleet.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, inject, it } from 'vitest';
import { fixtures } from '../fleet/fleet-layer-cli.js';
import { testNamespace } from '../harness/fleet/test-context.js';
import { runBuiltCli } from './run-cli.js';

const SENTINEL = 'ghs_SentinelToken0123456789abcdef';
/** HOME and the module cache outside the fixtures folder the CLI runs in. */
const home = mkdtempSync(join(tmpdir(), 'timoni-fleet-env-secrets-'));

function diff(env: Record<string, string>, ...extra: string[]) {
  return runBuiltCli(
    [
      'diff',
      '-f',
      'parts-bundle.cue',
      '-r',
      'runtime-fleet-3.cue',
      '--kubeconfig',
      inject('fleet').kubeconfigPath,
      ...extra,
    ],
    fixtures,
    { HOME: home, XDG_CACHE_HOME: join(home, 'cache'), ...env },
  );
}

describe('the CLI never offers a value that holds a secret to runtime attributes', () => {
  it('withholds a URL with a password and the kubeconfig text under --runtime-from-env, naming them only', async () => {
    const ns = (await testNamespace('fleet-3', 'env-secrets')).name;
    const kubeconfig = readFileSync(inject('fleet').kubeconfigPath, 'utf8');
    const withUrl = await diff(
      {
        PARTS_NS: ns,
        PARTS_SERVICE_ACCOUNT: 'true',
        PARTS_MESSAGE: `https://x-access-token:${SENTINEL}@github.com/o/r`,
      },
      '--runtime-from-env',
    );
    expect(withUrl.stderr).toContain('withheld PARTS_MESSAGE (password URL)');
    expect(withUrl.code).toBe(2);
    expect(`${withUrl.stdout}${withUrl.stderr}`).not.toContain(SENTINEL);

    const withKubeconfig = await diff(
      { PARTS_NS: ns, PARTS_SERVICE_ACCOUNT: 'true', PARTS_MESSAGE: kubeconfig },
      '--runtime-from-env',
    );
    expect(withKubeconfig.stderr).toContain('withheld PARTS_MESSAGE (secret)');
    expect(withKubeconfig.code).toBe(2);

    // The same bundle with a plain message is diffed: the check withholds only what holds a secret.
    const plain = await diff(
      { PARTS_NS: ns, PARTS_SERVICE_ACCOUNT: 'true', PARTS_MESSAGE: 'hello' },
      '--runtime-from-env',
    );
    expect(plain.stderr).not.toContain('withheld');
    expect(plain.code, plain.stderr).toBe(1);
  });

  it('withholds, under --runtime-from-env, the kubeconfig gzipped then base64-encoded and credentials by their shape', async () => {
    const ns = (await testNamespace('fleet-3', 'env-encoded')).name;
    const kubeconfig = readFileSync(inject('fleet').kubeconfigPath, 'utf8');
    const cases = [
      { value: Buffer.from(gzipSync(kubeconfig)).toString('base64'), why: 'secret in gzip in base64' },
      { value: `jdbc:postgresql://db:5432/x?user=u&password=${SENTINEL}`, why: 'password' },
      {
        value: JSON.stringify({ auths: { 'ghcr.io': { auth: Buffer.from(`u:${SENTINEL}`).toString('base64') } } }),
        why: 'registry credential',
      },
    ];
    for (const { value, why } of cases) {
      const result = await diff(
        { PARTS_NS: ns, PARTS_SERVICE_ACCOUNT: 'true', PARTS_MESSAGE: value },
        '--runtime-from-env',
      );
      expect(result.stderr, why).toContain(`withheld PARTS_MESSAGE (${why})`);
      expect(result.code).toBe(2);
      expect(`${result.stdout}${result.stderr}`).not.toContain(SENTINEL);
      expect(`${result.stdout}${result.stderr}`).not.toContain(value.slice(0, 40));
    }
  });

  it('refuses --runtime-env naming a variable that holds a URL with a password', async () => {
    const result = await diff(
      { PARTS_NS: 'x', PARTS_SERVICE_ACCOUNT: 'true', PARTS_MESSAGE: `postgres://app:${SENTINEL}@db/app` },
      '--runtime-env',
      'PARTS_NS,PARTS_SERVICE_ACCOUNT,PARTS_MESSAGE',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PARTS_MESSAGE (password URL)');
    expect(`${result.stdout}${result.stderr}`).not.toContain(SENTINEL);
  });
});
