import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { connectionFor } from '../../../src/kube/connect/connection.js';
import { loadKubeconfig } from '../../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../../src/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'exec-plugin-test-'));

/** A plugin script: records its input, prints `output`, exits with `code`. */
function plugin(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

function kubeconfigWith(exec: Record<string, unknown>) {
  return stringify({
    'current-context': 'c',
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'certificate-authority-data': 'Q0E=' } }],
    users: [{ name: 'u', user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', ...exec } } }],
    contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
  });
}

function setup(exec: Record<string, unknown>, execTimeoutMs = 5_000) {
  const seen: string[] = [];
  const secrets = new SecretRegistry((value) => seen.push(value));
  const connection = connectionFor(loadKubeconfig([kubeconfigWith(exec)], secrets), 'c', { secrets, execTimeoutMs });
  return { seen, connection };
}

describe('exec credential plugins', () => {
  it('runs the plugin with its env and KUBERNETES_EXEC_INFO, caches the token, registers it', async () => {
    const record = join(dir, 'record.json');
    const counter = join(dir, 'count');
    const command = plugin(
      'token-plugin',
      `echo run >> ${counter}\nprintf '%s' "$KUBERNETES_EXEC_INFO" > ${record}\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"'$PLUGIN_SEED'-issued-token"}}'`,
    );
    const { seen, connection } = setup({
      command,
      env: [{ name: 'PLUGIN_SEED', value: 'seed-value-77' }],
      provideClusterInfo: true,
    });
    const first = await connection.auth();
    const second = await connection.auth();
    expect(first.headers.Authorization).toBe('Bearer seed-value-77-issued-token');
    expect(second.headers.Authorization).toBe(first.headers.Authorization);
    expect(readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(1);
    const info = JSON.parse(readFileSync(record, 'utf8'));
    expect(info).toMatchObject({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: 'https://127.0.0.1:1' } },
    });
    expect(seen).toContain('seed-value-77');
    expect(seen).toContain('seed-value-77-issued-token');
    // A refused credential is asked for again.
    expect(connection.invalidate()).toBe(true);
    await connection.auth();
    expect(readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('runs a plugin given by a relative path from the kubeconfig folder', async () => {
    const command = plugin(
      'relative-plugin',
      `echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"relative-token-1"}}'`,
    );
    const secrets = new SecretRegistry();
    const config = loadKubeconfig(
      [{ text: kubeconfigWith({ command: './relative-plugin' }), path: join(dir, 'config') }],
      secrets,
    );
    expect(command.startsWith(dir)).toBe(true);
    const auth = await connectionFor(config, 'c', { secrets }).auth();
    expect(auth.headers.Authorization).toBe('Bearer relative-token-1');
  });

  it('says clearly that the plugin binary is missing, with its install hint', async () => {
    const { connection } = setup({
      command: 'no-such-credential-helper-xyz',
      installHint: 'Install it from example.com.',
    });
    await expect(connection.auth()).rejects.toThrow(
      /exec credential plugin "no-such-credential-helper-xyz" of user "u" of kube context "c" was not found .*Install it from example.com./,
    );
  });

  it('gives up after the timeout', async () => {
    const command = plugin('slow-plugin', 'sleep 5');
    const { connection } = setup({ command }, 300);
    const started = Date.now();
    await expect(connection.auth()).rejects.toThrow(/did not answer within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('reports a failing plugin without leaking what it printed', async () => {
    const command = plugin('failing-plugin', 'echo "denied for token $SECRET_IN" >&2\nexit 3');
    const { connection } = setup({ command, env: [{ name: 'SECRET_IN', value: 'very-secret-input' }] });
    const error = await connection.auth().catch((e: Error) => e);
    expect(String(error)).toMatch(/exited with code 3: denied for token \*\*\*/);
    expect(String(error)).not.toContain('very-secret-input');
  });

  it('accepts a client certificate from the plugin (v1beta1) and refuses a wrong apiVersion', async () => {
    const command = plugin(
      'cert-plugin',
      `echo '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"clientCertificateData":"CERT","clientKeyData":"KEY-MATERIAL-1","expirationTimestamp":"2999-01-01T00:00:00Z"}}'`,
    );
    const { seen, connection } = setup({ command, apiVersion: 'client.authentication.k8s.io/v1beta1' });
    const auth = await connection.auth();
    expect(auth.cert?.toString()).toBe('CERT');
    expect(auth.key?.toString()).toBe('KEY-MATERIAL-1');
    expect(seen).toContain('KEY-MATERIAL-1');
    const wrong = setup({ command });
    await expect(wrong.connection.auth()).rejects.toThrow(
      /answered with apiVersion "client.authentication.k8s.io\/v1beta1", expected "client.authentication.k8s.io\/v1"/,
    );
  });
});

describe('exec credential plugins and the pull request author', () => {
  it('refuses a relative command with a path in an inline kubeconfig (an action input has no folder)', () => {
    const secrets = new SecretRegistry();
    expect(() => loadKubeconfig([kubeconfigWith({ command: './hack/token.sh' })], secrets)).toThrow(
      /exec command "\.\/hack\/token\.sh" is a relative path, which kubectl resolves against the kubeconfig file's folder; this kubeconfig was given inline/,
    );
  });

  it("resolves it against the kubeconfig file's folder, runs there, and hides the job's credentials from the plugin", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'exec-plugin-file-'));
    const dump = join(folder, 'env.txt');
    const where = join(folder, 'cwd.txt');
    const hack = join(folder, 'hack');
    writeFileSync(join(folder, 'placeholder'), '');
    mkdirSync(hack);
    writeFileSync(
      join(hack, 'token.sh'),
      `#!/bin/sh\nenv > ${dump}\npwd > ${where}\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"file-plugin-token"}}'\n`,
    );
    chmodSync(join(hack, 'token.sh'), 0o755);
    const path = join(folder, 'kubeconfig');
    writeFileSync(
      path,
      kubeconfigWith({ command: './hack/token.sh', env: [{ name: 'PLUGIN_OWN', value: 'kept-value' }] }),
    );
    const saved = { input: process.env['INPUT_GITHUB-TOKEN'], runtime: process.env.ACTIONS_RUNTIME_TOKEN };
    process.env['INPUT_GITHUB-TOKEN'] = 'ghs_sentinel_input_token';
    process.env.ACTIONS_RUNTIME_TOKEN = 'sentinel-runtime-token';
    try {
      const secrets = new SecretRegistry();
      const connection = connectionFor(loadKubeconfig([{ text: readFileSync(path, 'utf8'), path }], secrets), 'c', {
        secrets,
        execTimeoutMs: 5_000,
      });
      expect((await connection.auth()).headers.Authorization).toBe('Bearer file-plugin-token');
    } finally {
      if (saved.input === undefined) delete process.env['INPUT_GITHUB-TOKEN'];
      else process.env['INPUT_GITHUB-TOKEN'] = saved.input;
      if (saved.runtime === undefined) delete process.env.ACTIONS_RUNTIME_TOKEN;
      else process.env.ACTIONS_RUNTIME_TOKEN = saved.runtime;
    }
    const environment = readFileSync(dump, 'utf8');
    expect(environment).toContain('PLUGIN_OWN=kept-value');
    expect(environment).toContain('PATH=');
    expect(environment).not.toContain('sentinel');
    expect(environment).not.toMatch(/^INPUT_|^ACTIONS_/m);
    expect(realpathSync(readFileSync(where, 'utf8').trim())).toBe(realpathSync(folder));
  });
});
