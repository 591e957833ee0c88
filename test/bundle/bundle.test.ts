// Bundles evaluated through `timoni-fleet vet` and the real CUE engine: bundles from
// Timoni's documentation evaluated for every cluster of the runtime, and bad bundles, each
// error naming the file, the line and the field on stderr (and, inside GitHub Actions, as
// an annotation on the file and line).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../cli/run-cli.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

interface VetDocument {
  clusters: Array<{
    name: string;
    group: string;
    bundle: {
      name: string;
      instances: Record<string, { module: Record<string, string>; namespace: string; values: Record<string, unknown> }>;
    };
  }>;
}

async function vetJson(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<VetDocument> {
  const result = await runCliCaptured(['vet', '--print-value', '-o', 'json', ...argv], { cwd: fixtures, env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as VetDocument;
}

describe('vet: multi-cluster bundle with name and group attributes', () => {
  it('evaluates every cluster in runtime order with its own values', async () => {
    const document = await vetJson(['-f', 'multi-cluster/bundle.cue', '-r', 'multi-cluster/runtime.cue']);
    expect(document.clusters.map((c) => [c.name, c.group])).toEqual([
      ['preview-eu-1', 'staging'],
      ['preview-us-1', 'staging'],
      ['prod-eu-1', 'production'],
      ['prod-us-1', 'production'],
    ]);
    const [previewEu, , prodEu] = document.clusters;
    expect(previewEu?.bundle.instances.podinfo?.values).toEqual({
      ui: { message: 'Hosted by preview-eu-1' },
      replicas: 1,
    });
    expect(prodEu?.bundle.instances.podinfo?.values).toEqual({ ui: { message: 'Hosted by prod-eu-1' }, replicas: 2 });
  });

  it('resolves the module version default and keeps a digest', async () => {
    const document = await vetJson(['-f', 'multi-cluster/bundle.cue', '-r', 'multi-cluster/runtime.cue']);
    const instances = document.clusters[0]?.bundle.instances;
    expect(Object.keys(instances ?? {})).toEqual(['podinfo', 'redis']);
    expect(instances?.podinfo?.module).toEqual({
      url: 'oci://ghcr.io/stefanprodan/modules/podinfo',
      version: 'latest',
    });
    expect(instances?.redis?.module.digest).toMatch(/^sha256:0a1b/);
    expect(instances?.redis?.module.version).toBe('7.2.3');
  });

  it('selects a group or a cluster case-insensitively', async () => {
    const production = await vetJson([
      '-f',
      'multi-cluster/bundle.cue',
      '-r',
      'multi-cluster/runtime.cue',
      '--runtime-group',
      'Production',
    ]);
    expect(production.clusters.map((c) => c.name)).toEqual(['prod-eu-1', 'prod-us-1']);
    const one = await vetJson([
      '-f',
      'multi-cluster/bundle.cue',
      '-r',
      'multi-cluster/runtime.cue',
      '--runtime-cluster',
      'PREVIEW-US-1',
    ]);
    expect(one.clusters.map((c) => c.name)).toEqual(['preview-us-1']);
  });

  it('prints each cluster as CUE in text mode, prefixed by its name', async () => {
    const result = await runCliCaptured(
      ['vet', '--print-value', '-f', 'multi-cluster/bundle.cue', '-r', 'multi-cluster/runtime.cue'],
      { cwd: fixtures },
    );
    expect(result.code).toBe(0);
    const starts = result.stdout.split('\n').filter((line) => /^"[^"]+": bundle: \{/.test(line));
    expect(starts).toEqual([
      '"preview-eu-1": bundle: {',
      '"preview-us-1": bundle: {',
      '"prod-eu-1": bundle: {',
      '"prod-us-1": bundle: {',
    ]);
    expect(result.stdout).toContain('"Hosted by prod-us-1"');
  });

  it('logs each valid instance with Timoni prefixes without --print-value', async () => {
    const result = await runCliCaptured(
      ['vet', '-f', 'multi-cluster/bundle.cue', '-r', 'multi-cluster/runtime.cue', '--runtime-group', 'staging'],
      { cwd: fixtures },
    );
    expect(result.code).toBe(0);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      'b:apps > c:preview-eu-1 > i:podinfo > instance is valid',
      'b:apps > c:preview-eu-1 > i:redis > instance is valid',
      'b:apps > c:preview-us-1 > i:podinfo > instance is valid',
      'b:apps > c:preview-us-1 > i:redis > instance is valid',
      'b:apps > bundle is valid',
    ]);
  });
});

describe('vet: attributes beside defaults, environment values, types', () => {
  it('keeps the default when no runtime value is given, on the _default cluster', async () => {
    const document = await vetJson(['-f', 'defaults/bundle.cue'], { WEB_HOST: 'ignored-without-flag' });
    expect(document.clusters).toHaveLength(1);
    expect(document.clusters[0]?.name).toBe('_default');
    expect(document.clusters[0]?.bundle.instances.frontend?.values).toEqual({ host: 'web.example.com', color: 'blue' });
  });

  it('takes values from the environment with --runtime-from-env, replacing the whole field', async () => {
    const document = await vetJson(['-f', 'defaults/bundle.cue', '--runtime-from-env'], {
      WEB_HOST: 'shop.example.org',
      WEB_COLOR: 'green',
    });
    expect(document.clusters[0]?.bundle.instances.frontend?.values).toEqual({
      host: 'shop.example.org',
      color: 'green',
    });
  });

  it('replaces a disjunction with the literal, so a value outside it is accepted as Timoni does', async () => {
    const document = await vetJson(['-f', 'defaults/bundle.cue', '--runtime-from-env'], { WEB_COLOR: 'red' });
    expect(document.clusters[0]?.bundle.instances.frontend?.values.color).toBe('red');
  });

  it('injects number and bool attributes, hidden fields included', async () => {
    const document = await vetJson(['-f', 'typed-attributes/bundle.cue', '--runtime-from-env'], {
      REPLICAS: '3',
      RATIO: '0.5',
      DEBUG: 'true',
      INTERNAL: 'true',
    });
    expect(document.clusters[0]?.bundle.instances.app?.values).toEqual({
      replicas: 3,
      ratio: 0.5,
      debug: true,
      internal: true,
    });
  });
});

describe('vet: several files', () => {
  it('shares hidden fields across files of the package', async () => {
    const document = await vetJson(['-f', 'shared-hidden/bundle.cue', '-f', 'shared-hidden/secrets.cue']);
    expect(document.clusters[0]?.bundle.instances.podinfo?.values).toEqual({
      caching: { enabled: true, redisURL: 'tcp://:s3cr3t-from-second-file@redis:6379' },
    });
  });

  it('unifies YAML and JSON files with CUE files', async () => {
    const document = await vetJson([
      '-f',
      'yaml-and-cue/bundle.cue',
      '-f',
      'yaml-and-cue/values.yaml,yaml-and-cue/extra.json',
    ]);
    expect(document.clusters[0]?.bundle.instances.podinfo?.values).toEqual({
      replicaCount: 3,
      ingress: { enabled: true, host: 'podinfo.example.com' },
      resources: { limits: { memory: '256Mi' } },
    });
  });

  it('prints a relative file:// module URL as written, as Timoni prints the bundle value', async () => {
    const document = await vetJson(['-f', 'file-module/bundle.cue']);
    expect(document.clusters[0]?.bundle.instances.app?.module.url).toBe('file://./modules/app');
  });
});

async function vetFails(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const result = await runCliCaptured(['vet', ...argv], { cwd: fixtures, env });
  expect(result.code).not.toBe(0);
  return result;
}

describe('vet: errors name file, line and field', () => {
  it('syntax error', async () => {
    const { stderr } = await vetFails(['-f', 'bad/syntax-error.cue']);
    expect(stderr).toMatch(/bad\/syntax-error\.cue:\d+:\d+/);
  });

  it('wrong apiVersion', async () => {
    const { stderr } = await vetFails(['-f', 'bad/wrong-api-version.cue']);
    expect(stderr).toContain('bad/wrong-api-version.cue:2:');
    expect(stderr).toContain('bundle.apiVersion');
  });

  it('uppercase instance name', async () => {
    const { stderr } = await vetFails(['-f', 'bad/uppercase-instance.cue']);
    expect(stderr).toContain('bad/uppercase-instance.cue:4:');
    expect(stderr).toMatch(/instances\.PodInfo|PodInfo/);
  });

  it('extra key under module', async () => {
    const { stderr } = await vetFails(['-f', 'bad/extra-module-key.cue']);
    expect(stderr).toContain('bad/extra-module-key.cue:7:');
    expect(stderr).toContain('bundle.instances.app.module.tag');
  });

  it('unknown attribute type, without showing the value', async () => {
    const { stderr } = await vetFails(['-f', 'bad/unknown-attribute-type.cue', '-r', 'bad/runtime-two-clusters.cue']);
    expect(stderr).toContain('bad/unknown-attribute-type.cue:2');
    expect(stderr).toContain('runtime:text:TIMONI_CLUSTER_NAME');
  });

  it('a number attribute given text, without showing the value', async () => {
    const { stderr } = await vetFails(['-f', 'bad/bad-number.cue', '--runtime-from-env'], {
      REPLICAS: 'three-secret-replicas',
    });
    expect(stderr).toContain('bad/bad-number.cue:7');
    expect(stderr).toContain('runtime:number:REPLICAS');
    expect(stderr).not.toContain('three-secret-replicas');
  });

  it('conflicting files name both places', async () => {
    const { stderr } = await vetFails(['-f', 'bad/conflict-a.cue', '-f', 'bad/conflict-b.cue']);
    expect(stderr).toContain('bundle.name');
    expect(stderr).toContain('bad/conflict-a.cue:3:');
    expect(stderr).toContain('bad/conflict-b.cue:1:');
  });

  it('no cluster matching the selection', async () => {
    const { stderr, code } = await vetFails([
      '-f',
      'multi-cluster/bundle.cue',
      '-r',
      'multi-cluster/runtime.cue',
      '--runtime-group',
      'qa',
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain('no cluster of runtime "fleet" matches group "qa"');
  });

  it('incomplete value', async () => {
    const { stderr } = await vetFails(['-f', 'bad/incomplete.cue']);
    expect(stderr).toContain('bundle.instances.app.namespace');
    expect(stderr).toContain('bad/incomplete.cue:6:');
  });

  it('a runtime with value queries and no kubeconfig names the queries and how to give one', async () => {
    const { stderr } = await vetFails(['-f', 'queries/bundle.cue', '-r', 'queries/runtime.cue'], {
      KUBECONFIG: join(fixtures, 'no-such-kubeconfig'),
    });
    expect(stderr).toContain('k8s:v1:ConfigMap:infra:aws-info');
    expect(stderr).toContain('no kubeconfig found');
    expect(stderr).toContain('pass --kubeconfig or set KUBECONFIG');
  });

  it('a missing file and an unsupported extension', async () => {
    expect((await vetFails(['-f', 'nope/bundle.cue'])).stderr).toContain('nope/bundle.cue: no such file');
    expect((await vetFails(['-f', 'bad/notes.txt'])).stderr).toContain('unsupported file extension ".txt"');
  });

  it('becomes annotations on the file and line inside GitHub Actions', async () => {
    const { stdout } = await vetFails(['-f', 'bad/wrong-api-version.cue'], { GITHUB_ACTIONS: 'true' });
    expect(stdout).toMatch(
      /^::error file=bad\/wrong-api-version\.cue,line=2,col=\d+,title=CUE error at bundle\.apiVersion::/m,
    );
  });

  it('usage errors exit 1, as timoni bundle vet', async () => {
    const result = await runCliCaptured(['vet'], { cwd: fixtures });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('pass one or more files with -f');
  });
});
