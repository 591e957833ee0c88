// The engine's client against the real fleet: version, discovery, errors, auth variants,
// proxy, TLS options, a cluster that is down; kept-alive connections the server dropped.
import { chmodSync, readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { applyObject } from '../../../src/kube/ssa/apply.js';
import { parseWarnings, type KubeWarning } from '../../../src/kube/connect/client.js';
import { openCluster } from '../../../src/kube/connect/cluster.js';
import { Discovery, NoMatchError } from '../../../src/kube/connect/discovery.js';
import { KubeApiError, KubeConnectionError } from '../../../src/kube/connect/errors.js';
import { KubeContextNotFoundError, loadKubeconfig } from '../../../src/kube/connect/kubeconfig.js';
import { SecretRegistry } from '../../../src/secrets.js';
import { clusterClient, testFleet, testNamespace } from '../../harness/fleet/test-context.js';
import { engineFleet, onEveryCluster } from '../support.js';

interface RawConfig {
  clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
  users: Array<{ name: string; user: Record<string, unknown> }>;
  contexts: Array<{ name: string; context: Record<string, unknown> }>;
}

/** A one-context kubeconfig for the first fleet cluster, with the cluster and user fields changed. */
function variant(
  cluster: (c: Record<string, unknown>) => Record<string, unknown>,
  user: (u: Record<string, unknown>) => Record<string, unknown>,
): string {
  const fleet = testFleet();
  const raw = parse(readFileSync(fleet.kubeconfigPath, 'utf8')) as RawConfig;
  const context = raw.contexts.find((c) => c.name === fleet.clusters[0]!.contextName)!;
  const c = raw.clusters.find((x) => x.name === context.context.cluster)!;
  const u = raw.users.find((x) => x.name === context.context.user)!;
  return stringify({
    'current-context': 'variant',
    clusters: [{ name: 'variant', cluster: cluster({ ...c.cluster }) }],
    users: [{ name: 'variant-user', user: user({ ...u.user }) }],
    contexts: [{ name: 'variant', context: { cluster: 'variant', user: 'variant-user' } }],
  });
}

function openVariant(text: string, name = 'variant-cluster') {
  const registered: string[] = [];
  const secrets = new SecretRegistry((value) => registered.push(value));
  const cluster = openCluster(loadKubeconfig([text], secrets), undefined, { secrets, name, timeoutMs: 10_000 });
  return { cluster, registered };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('engine client on the fleet', () => {
  it('reads /version of every cluster at once', async () => {
    const { clusters } = engineFleet();
    const versions = await onEveryCluster(clusters, (cluster) => cluster.client.version());
    expect(versions.map((v) => v.gitVersion)).toEqual(testFleet().clusters.map(() => 'v1.36.3'));
    expect(clusters.map((c) => c.name)).toEqual(testFleet().clusters.map((c) => c.name));
  });

  it('maps kinds to resources and scopes, and finds a new CRD once it is established', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[1]!;
    expect(await cluster.discovery.mapping('apps/v1', 'Deployment')).toEqual({
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      resource: 'deployments',
      namespaced: true,
      statusSubresource: true,
    });
    expect(await cluster.discovery.mapping('v1', 'Namespace')).toMatchObject({
      resource: 'namespaces',
      namespaced: false,
    });
    expect(await cluster.discovery.mapping('rbac.authorization.k8s.io/v1', 'ClusterRole')).toMatchObject({
      resource: 'clusterroles',
      namespaced: false,
      statusSubresource: false,
    });
    const clusterRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'r', namespace: 'stray' },
    };
    expect(await cluster.scopedRef(clusterRole)).toEqual({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      namespace: '',
      name: 'r',
    });
    expect(
      (await cluster.scopedRef({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' } }))
        .namespace,
    ).toBe('n');

    const group = `t${Date.now().toString(36)}.example.com`;
    await expect(cluster.discovery.mapping(`${group}/v1`, 'Widget')).rejects.toBeInstanceOf(NoMatchError);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    };
    expect((await applyObject(cluster, crd)).action).toBe('created');
    const admin = clusterClient(1);
    try {
      const deadline = Date.now() + 30_000;
      for (;;) {
        const live = await admin.get({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: crd.metadata.name,
        });
        const conditions =
          (live.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
        if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() > deadline) throw new Error('CRD not established in 30 s');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const mapping = await cluster.discovery.waitForMapping(`${group}/v1`, 'Widget', 20_000);
      expect(mapping).toEqual({
        group,
        version: 'v1',
        kind: 'Widget',
        resource: 'widgets',
        namespaced: true,
        statusSubresource: false,
      });
    } finally {
      await admin.delete({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        name: crd.metadata.name,
      });
    }
  });

  it('reads the same mappings through aggregated and legacy discovery', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[0]!;
    const key = (m: { group: string; version: string; kind: string }) => `${m.group}/${m.version}/${m.kind}`;
    const aggregated = await new Discovery(cluster.client).all();
    const legacy = await new Discovery(cluster.client, 1_000, false).all();
    expect(aggregated.length).toBeGreaterThan(40);
    const sort = (list: typeof aggregated) => [...list].sort((a, b) => key(a).localeCompare(key(b)));
    expect(sort(legacy)).toEqual(sort(aggregated));
    expect(aggregated.find((m) => key(m) === 'apps/v1/StatefulSet')).toMatchObject({
      resource: 'statefulsets',
      namespaced: true,
      statusSubresource: true,
    });
  });

  it('turns an error status into a KubeApiError naming cluster, object, reason and message', async () => {
    const { clusters } = engineFleet();
    const cluster = clusters[2]!;
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'does-not-exist' };
    expect(await cluster.get(ref)).toBeNull();
    const { path } = await cluster.locate(ref);
    const error = await cluster.client.request({ method: 'GET', path, object: ref }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    const apiError = error as KubeApiError;
    expect(apiError.status).toBe(404);
    expect(apiError.reason).toBe('NotFound');
    expect(apiError.statusMessage).toBe('configmaps "does-not-exist" not found');
    expect(apiError.message).toBe(
      `cluster ${cluster.name}: ConfigMap/default/does-not-exist: GET ${path} failed: configmaps "does-not-exist" not found (NotFound)`,
    );
  });

  it('hands the server warnings to a callback, with the cluster and the object', async () => {
    const ns = (await testNamespace(2, 'kube-warnings')).name;
    const { kubeconfig, secrets } = engineFleet();
    const warnings: KubeWarning[] = [];
    const cluster = openCluster(kubeconfig, testFleet().clusters[2]!.contextName, {
      secrets,
      name: 'warned',
      onWarning: (warning) => warnings.push(warning),
    });
    const dotted = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web.v2', namespace: ns },
      spec: {
        selector: { matchLabels: { app: 'w' } },
        template: { metadata: { labels: { app: 'w' } }, spec: { containers: [{ name: 'w', image: 'nginx' }] } },
      },
    };
    expect((await applyObject(cluster, dotted)).action).toBe('created');
    cluster.close();
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]).toEqual({
      cluster: 'warned',
      text: expect.stringMatching(/^metadata.name: .*must not contain dots/),
      object: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: 'web.v2' },
    });
    expect(parseWarnings(['299 - "first \\"quoted\\" text"', '299 - "a", 299 - "b"'])).toEqual([
      'first "quoted" text',
      'a',
      'b',
    ]);
  });

  it('lists the existing contexts when the asked one is missing', () => {
    const { kubeconfig, secrets } = engineFleet();
    const names = testFleet().clusters.map((c) => c.contextName);
    let caught: unknown;
    try {
      openCluster(kubeconfig, 'eks-eu-west-9', { secrets });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(KubeContextNotFoundError);
    expect((caught as Error).message).toBe(
      `kube context "eks-eu-west-9" not found in kubeconfig; contexts: ${names.join(', ')}`,
    );
  });

  it('says which cluster is down, and the engine keeps working with the others', async () => {
    const port = await freePort();
    const { cluster } = openVariant(
      variant(
        (c) => ({ ...c, server: `https://127.0.0.1:${port}` }),
        (u) => u,
      ),
      'preview-eu-1',
    );
    const error = await cluster.client.version().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeConnectionError);
    // A server that never answered gets a few quick retries only (request-retry.ts).
    expect((error as Error).message).toMatch(
      new RegExp(
        `^cluster preview-eu-1: cannot reach the API server at https://127\\.0\\.0\\.1:${port}: connection refused \\(is the API server running\\?\\) \\[ECONNREFUSED\\] \\(GET /version: 5 attempts over \\d\\.\\d s\\)$`,
      ),
    );
    const { clusters } = engineFleet();
    expect((await clusters[0]!.client.version()).gitVersion).toBe('v1.36.3');
  });

  it('gives up on a server that never answers, naming the cluster', async () => {
    // Accepts TCP connections and says nothing, not even the TLS handshake.
    const silent = createNetServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const registered: string[] = [];
      const secrets = new SecretRegistry((value) => registered.push(value));
      const text = variant(
        (c) => ({ ...c, server: `https://127.0.0.1:${port}` }),
        (u) => u,
      );
      const cluster = openCluster(loadKubeconfig([text], secrets), undefined, {
        secrets,
        name: 'silent-1',
        timeoutMs: 500,
      });
      const started = Date.now();
      const error = await cluster.client.version().catch((e: unknown) => e);
      // One time limit from before the connection: not 500 ms to connect, then 500 ms more once accepted.
      expect(Date.now() - started).toBeLessThan(900);
      expect(error).toBeInstanceOf(KubeConnectionError);
      expect((error as Error).message).toBe(
        `cluster silent-1: GET /version: the API server at https://127.0.0.1:${port} accepted the connection but the TLS handshake did not finish within 500 ms [ETIMEDOUT]`,
      );
      cluster.close();
    } finally {
      silent.close();
    }
  });

  it('checks the server name: tls-server-name must match the certificate; insecure-skip-tls-verify skips the check', async () => {
    const good = openVariant(
      variant(
        (c) => ({ ...c, 'tls-server-name': 'kubernetes.default' }),
        (u) => u,
      ),
    );
    expect((await good.cluster.client.version()).gitVersion).toBe('v1.36.3');
    const bad = openVariant(
      variant(
        (c) => ({ ...c, 'tls-server-name': 'not-the-apiserver.example' }),
        (u) => u,
      ),
      'bad-name',
    );
    await expect(bad.cluster.client.version()).rejects.toThrow(
      /cluster bad-name: .*does not match the server name .*ERR_TLS_CERT_ALTNAME_INVALID/,
    );
    const noCa = openVariant(
      variant(
        ({ 'certificate-authority-data': _ca, ...c }) => c,
        (u) => u,
      ),
      'no-ca',
    );
    await expect(noCa.cluster.client.version()).rejects.toThrow(/cluster no-ca: .*(not trusted|not signed)/);
    const insecure = openVariant(
      variant(
        ({ 'certificate-authority-data': _ca, ...c }) => ({ ...c, 'insecure-skip-tls-verify': true }),
        (u) => u,
      ),
    );
    expect((await insecure.cluster.client.version()).gitVersion).toBe('v1.36.3');
    [good, bad, noCa, insecure].forEach((x) => x.cluster.close());
  });

  it('goes through an HTTP CONNECT proxy (proxy-url)', async () => {
    const tunnels: string[] = [];
    const proxy: Server = createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req, clientSocket, head) => {
      tunnels.push(`${req.url} auth=${req.headers['proxy-authorization'] ?? ''}`);
      const [host, port] = String(req.url).split(':');
      const upstream = connect(Number(port), host, () => {
        clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(clientSocket);
        clientSocket.pipe(upstream);
      });
      upstream.on('error', () => clientSocket.destroy());
      clientSocket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const proxyPort = (proxy.address() as AddressInfo).port;
      const { cluster, registered } = openVariant(
        variant(
          (c) => ({ ...c, 'proxy-url': `http://fleet:proxy-secret-1@127.0.0.1:${proxyPort}` }),
          (u) => u,
        ),
      );
      expect((await cluster.client.version()).gitVersion).toBe('v1.36.3');
      expect(await cluster.get({ apiVersion: 'v1', kind: 'Namespace', namespace: '', name: 'default' })).not.toBeNull();
      cluster.close();
      const server = new URL(testFleet().clusters[0]!.server);
      expect(tunnels[0]).toBe(`${server.host} auth=Basic ${Buffer.from('fleet:proxy-secret-1').toString('base64')}`);
      expect(registered).toContain('proxy-secret-1');
    } finally {
      proxy.close();
    }
  });

  it('impersonates a user with two groups: the API server sees two groups, not "dev, ops"', async () => {
    const ns = await testNamespace(0, 'impersonate');
    const admin = clusterClient(0);
    const user = `impersonated-${ns.name}`;
    // Only group `ops` may list ConfigMaps in this namespace (deleted with it).
    await admin.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'ops-reader', namespace: ns.name },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      },
      { fieldManager: 'test', force: true },
    );
    await admin.apply(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'ops-reader', namespace: ns.name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ops-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'ops' }],
      },
      { fieldManager: 'test', force: true },
    );
    const as = (groups: string[]) =>
      openVariant(
        variant(
          (c) => c,
          (u) => ({ ...u, as: user, 'as-groups': groups }),
        ),
        'impersonating',
      );

    const both = as(['dev', 'ops']);
    const review = await both.cluster.client.request<{ status: { userInfo: { username: string; groups: string[] } } }>({
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });
    expect(review.status.userInfo.username).toBe(user);
    expect(review.status.userInfo.groups).toEqual(expect.arrayContaining(['dev', 'ops']));
    expect(review.status.userInfo.groups).not.toContain('dev, ops');
    const listed = await both.cluster.client.request<{ items: unknown[] }>({
      method: 'GET',
      path: `/api/v1/namespaces/${ns.name}/configmaps`,
    });
    expect(Array.isArray(listed.items)).toBe(true);

    const devOnly = as(['dev']);
    const refused = await devOnly.cluster.client
      .request({ method: 'GET', path: `/api/v1/namespaces/${ns.name}/configmaps` })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).status).toBe(403);
    [both, devOnly].forEach((x) => x.cluster.close());
  });

  it('authenticates with a bearer token, a tokenFile and an exec plugin', async () => {
    const ns = await testNamespace(0, 'kube-auth');
    const admin = clusterClient(0);
    const review = await admin.requestJson<{ status: { token: string } }>(
      'POST',
      `/api/v1/namespaces/${ns.name}/serviceaccounts/default/token`,
      {
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 600 },
        }),
        contentType: 'application/json',
      },
    );
    const token = review.status.token;
    const whoAmI = async (text: string) => {
      const { cluster, registered } = openVariant(text);
      const answer = await cluster.client.request<{ status: { userInfo: { username: string } } }>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      cluster.close();
      return { username: answer.status.userInfo.username, registered };
    };
    const noCert = (u: Record<string, unknown>) => {
      const { 'client-certificate-data': _c, 'client-key-data': _k, ...rest } = u;
      return rest;
    };
    const expected = `system:serviceaccount:${ns.name}:default`;

    const withToken = await whoAmI(
      variant(
        (c) => c,
        (u) => ({ ...noCert(u), token }),
      ),
    );
    expect(withToken.username).toBe(expected);
    expect(withToken.registered).toContain(token);

    const dir = mkdtempSync(join(tmpdir(), 'kube-auth-'));
    writeFileSync(join(dir, 'token'), `${token}\n`);
    const withFile = await whoAmI(
      variant(
        (c) => c,
        (u) => ({ ...noCert(u), tokenFile: join(dir, 'token') }),
      ),
    );
    expect(withFile.username).toBe(expected);

    const plugin = join(dir, 'plugin');
    writeFileSync(
      plugin,
      `#!/bin/sh\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"'"$SA_TOKEN"'"}}'\n`,
    );
    chmodSync(plugin, 0o755);
    const withExec = await whoAmI(
      variant(
        (c) => c,
        (u) => ({
          ...noCert(u),
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: plugin,
            env: [{ name: 'SA_TOKEN', value: token }],
          },
        }),
      ),
    );
    expect(withExec.username).toBe(expected);
    expect(withExec.registered).toContain(token);

    // A refused credential (401) makes the client run the plugin again, once.
    const rotating = join(dir, 'rotating-plugin');
    writeFileSync(
      rotating,
      `#!/bin/sh\nif [ -f ${join(dir, 'ran')} ]; then T="$SA_TOKEN"; else T=stale-token-0000; touch ${join(dir, 'ran')}; fi\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"'"$T"'"}}'\n`,
    );
    chmodSync(rotating, 0o755);
    const withRotation = await whoAmI(
      variant(
        (c) => c,
        (u) => ({
          ...noCert(u),
          exec: {
            apiVersion: 'client.authentication.k8s.io/v1',
            command: rotating,
            env: [{ name: 'SA_TOKEN', value: token }],
          },
        }),
      ),
    );
    expect(withRotation.username).toBe(expected);
    expect(withRotation.registered).toContain('stale-token-0000');

    const cert = join(dir, 'cert-plugin');
    const fleetCluster = testFleet().clusters[0]!;
    const certJson = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: {
        clientCertificateData: readFileSync(fleetCluster.userCertPath, 'utf8'),
        clientKeyData: readFileSync(fleetCluster.userKeyPath, 'utf8'),
      },
    });
    writeFileSync(join(dir, 'cert.json'), certJson);
    writeFileSync(cert, `#!/bin/sh\ncat ${join(dir, 'cert.json')}\n`);
    chmodSync(cert, 0o755);
    const withExecCert = await whoAmI(
      variant(
        (c) => c,
        (u) => ({ ...noCert(u), exec: { apiVersion: 'client.authentication.k8s.io/v1', command: cert } }),
      ),
    );
    expect(withExecCert.username).not.toBe('');
    expect(withExecCert.registered).toContain(readFileSync(fleetCluster.userKeyPath, 'utf8'));
  });
});

// Kept-alive connections the server dropped (an API server restart) are not errors: the
// request goes again on a fresh connection. A server that drops every request still fails.
describe('kept-alive connections', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  /** An HTTP server answering /version; `drop(n)` says whether to cut the n-th request of a connection. */
  async function start(
    drop: (requestOnConnection: number) => boolean,
  ): Promise<{ url: string; connections: () => number }> {
    const counts = new WeakMap<Socket, number>();
    let connections = 0;
    server = createServer((req, res) => {
      const n = (counts.get(req.socket) ?? 0) + 1;
      counts.set(req.socket, n);
      if (drop(n)) {
        req.socket.destroy();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', Connection: 'keep-alive' });
      res.end(JSON.stringify({ major: '1', minor: '36', gitVersion: `v1.36.3-conn${connections}-req${n}` }));
    });
    server.on('connection', () => connections++);
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections };
  }

  function clusterAt(url: string) {
    const secrets = new SecretRegistry();
    const text = stringify({
      'current-context': 'k',
      clusters: [{ name: 'k', cluster: { server: url } }],
      users: [{ name: 'u', user: { token: 'keepalive-token' } }],
      contexts: [{ name: 'k', context: { cluster: 'k', user: 'u' } }],
    });
    return openCluster(loadKubeconfig([text], secrets), undefined, { secrets, name: 'keepalive-1', timeoutMs: 5_000 });
  }

  it('sends a request again when the server dropped the kept-alive connection', async () => {
    const { url, connections } = await start((n) => n === 2);
    const cluster = clusterAt(url);
    expect((await cluster.client.version()).gitVersion).toBe('v1.36.3-conn1-req1');
    // Second request on the same socket is cut; the client retries on a new connection.
    expect((await cluster.client.version()).gitVersion).toBe('v1.36.3-conn2-req1');
    expect(connections()).toBe(2);
    cluster.close();
  });

  it('fails, naming the cluster, when even fresh connections are cut', async () => {
    const { url } = await start(() => true);
    const cluster = clusterAt(url);
    const error = await cluster.client.version().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeConnectionError);
    expect((error as Error).message).toMatch(
      /^cluster keepalive-1: cannot reach the API server at http:\/\/127\.0\.0\.1:\d+: (connection reset|socket hang up)/,
    );
    cluster.close();
  });
});
