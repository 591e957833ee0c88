// End to end: `on-failure: rollback` with `strategy: waves`, as a workflow runs the action on
// a merged pull request. The demo bundle (renamed `rollback`, namespace `rollback`) is first
// applied everywhere with module 1.4.0; then a merge moves it to a module version whose
// Deployment never becomes ready (the harness's never-ready marker, set by the module), which
// also drops the ServiceAccount and adds a ConfigMap, and adds a new instance. Staging fails,
// is put back as it was (the live Deployment's spec and labels, the ServiceAccount
// re-created, the added ConfigMap gone, the new instance deleted, and Timoni's instance
// Secret byte for byte), production is not reached, and the comment and summary say so.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runAction, type ActionRun } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';
import { exampleModule } from '../harness/fleet/fleet-registry.js';
import { KubeClient, type KubeObject } from '../harness/fleet/kube-client.js';
import { neverReadyAnnotation } from '../harness/fleet/readiness.js';
import { pushTimoniModule } from '../harness/registry/index.js';
import { repositoryRoot } from '../harness/support/go-binary.js';

interface InstanceOutput {
  name: string;
  rollback?: { action: string; module?: { version: string }; error?: { message: string } };
}
interface ClusterOutput {
  name: string;
  status: string;
  error: { step: string; object?: string } | null;
  instances: InstanceOutput[];
  rollback?: { outcome: string; wave?: { failed: string } };
}

// A namespace of its own on each run: the fleet is shared, and reused between runs.
const NAMESPACE = `rollback-${randomBytes(3).toString('hex')}`;
const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const currentStage = useDemoStage(NAMESPACE);
let stage: DemoStage;
let staging: KubeClient;
let production: KubeClient;
const moduleDirs: string[] = [];

/** The example module with its templates edited, pushed to the stage's registry under `tag`. */
async function pushEditedModule(tag: string, edit: (objects: string, instance: string) => [string, string]) {
  const module = exampleModule();
  const dir = mkdtempSync(join(tmpdir(), 'timoni-fleet-rollback-module-'));
  moduleDirs.push(dir);
  cpSync(join(repositoryRoot, 'examples', 'modules', 'webapp'), dir, { recursive: true });
  const objectsPath = join(dir, 'templates', 'objects.cue');
  const instancePath = join(dir, 'templates', 'config.cue');
  const [objects, instance] = edit(readFileSync(objectsPath, 'utf8'), readFileSync(instancePath, 'utf8'));
  writeFileSync(objectsPath, objects);
  writeFileSync(instancePath, instance);
  await pushTimoniModule({ registry: stage.registry.url, repository: module.repository, tag, moduleDir: dir });
}

function replaceOnce(text: string, from: string, to: string): string {
  if (text.split(from).length !== 2) throw new Error(`module edit: ${JSON.stringify(from)} is not there once`);
  return text.replace(from, () => to);
}

beforeAll(async () => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "rollback"' },
    { from: 'namespace: "shop"', to: `namespace: "${NAMESPACE}"` },
  ]);
  staging = KubeClient.fromKubeconfig(stage.kubeconfig, 'fleet-1');
  production = KubeClient.fromKubeconfig(stage.kubeconfig, 'fleet-2');
  // 1.5.0: the Deployment never becomes ready, the ServiceAccount is gone, a ConfigMap is added.
  await pushEditedModule('1.5.0', (objects, instance) => [
    replaceOnce(
      objects,
      `kind:       "Deployment"\n\tlet C = #config\n\tmetadata: #Meta & {#config: C}`,
      `kind:       "Deployment"\n\tmetadata: {\n\t\tname:      #config.metadata.name\n\t\tnamespace: #config.metadata.namespace\n\t\tlabels:    #config.metadata.labels\n\t\tannotations: "${neverReadyAnnotation}": "true"\n\t}`,
    ) +
      `\n#Extra: {\n\t#config:    #Config\n\tapiVersion: "v1"\n\tkind:       "ConfigMap"\n\tmetadata: {\n\t\tname:      "\\(#config.metadata.name)-extra"\n\t\tnamespace: #config.metadata.namespace\n\t}\n\tdata: added: "by 1.5.0"\n}\n`,
    replaceOnce(instance, 'sa:  #ServiceAccount & {#config: config}', 'extra: #Extra & {#config: config}'),
  ]);
  // 1.6.0: the test Job (recreated: its pod template changes) fails; the Deployment becomes ready.
  await pushEditedModule('1.6.0', (objects, instance) => [
    replaceOnce(
      replaceOnce(objects, 'args: ["-s", ', 'args: ["-sf", '),
      `annotations: "action.timoni.sh/force": "enabled"`,
      `annotations: {\n\t\t\t"action.timoni.sh/force": "enabled"\n\t\t\t"${neverReadyAnnotation}": "true"\n\t\t}`,
    ),
    instance,
  ]);
}, 120_000);

afterAll(() => {
  for (const dir of moduleDirs) rmSync(dir, { recursive: true, force: true });
});

let prNumber = 60;
async function merge(inputs: Record<string, string>): Promise<ActionRun> {
  const pr = stage.openPullRequest((prNumber += 1));
  stage.github.state.addCommit(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.mergeCommitSha);
  const result = await runAction({
    event: pullRequestEvent({
      action: 'closed',
      merged: true,
      mergeCommitSha: pr.mergeCommitSha,
      repository,
      number: pr.number,
      headSha: pr.headSha,
    }),
    githubApiUrl: stage.github.url,
    token: stage.github.token,
    workdir: stage.workdir,
    inputs: { ...stage.inputs, strategy: 'waves', ...inputs },
    env: stage.env,
    timeoutMs: 170_000,
  });
  return Object.assign(result, { prNumber: pr.number });
}

const clustersOf = (result: ActionRun) =>
  (JSON.parse(result.outputs.changes ?? '{}') as { clusters: ClusterOutput[] }).clusters;

const commentOf = (number: number) =>
  stage.github.state
    .comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, number)
    .map((c) => c.body)
    .join('\n');

const ref = (apiVersion: string, kind: string, name: string) => ({ apiVersion, kind, namespace: NAMESPACE, name });
const deploymentRef = ref('apps/v1', 'Deployment', 'frontend');
const recordRef = ref('v1', 'Secret', 'timoni.frontend');

/** What a rollback must give back of the live Deployment: its spec and labels, annotations. */
function deploymentState(object: KubeObject) {
  return { spec: object.spec, labels: object.metadata.labels, annotations: object.metadata.annotations ?? {} };
}

async function liveState(client: KubeClient) {
  const record = await client.get(recordRef);
  return {
    deployment: deploymentState(await client.get(deploymentRef)),
    record: { type: record.type, labels: record.metadata.labels, data: record.data as Record<string, string> },
  };
}

describe('on-failure: rollback with strategy waves', () => {
  it('puts a failed staging cluster back as it was, and never reaches production', async () => {
    const first = await merge({});
    expect(first.exitCode, first.log).toBe(0);
    const before = await liveState(staging);
    const productionBefore = await liveState(production);
    expect(Object.keys(before.record.data)).toEqual(['instance']);

    stage.editBundle([
      { from: 'version: "1.4.0"', to: 'version: "1.5.0"' },
      {
        from: 'instances: {',
        to: `instances: {\n\t\tbackend: {\n\t\t\tmodule: {\n\t\t\t\turl:     "oci://\\(_registry)/modules/webapp"\n\t\t\t\tversion: "1.4.0"\n\t\t\t}\n\t\t\tnamespace: "${NAMESPACE}"\n\t\t\tvalues: message: "new in this run"\n\t\t}`,
      },
    ]);
    const result = await merge({ 'on-failure': 'rollback', timeout: '20s' });
    expect(result.exitCode, result.log).toBe(1);
    const clusters = clustersOf(result);
    expect(clusters.map((c) => [c.name, c.status])).toEqual([
      ['staging-1', 'failed'],
      ['production-eu', 'skipped'],
      ['production-us', 'skipped'],
    ]);
    const [stagingEntry] = clusters;
    expect(stagingEntry?.error?.step).toBe('wait');
    expect(stagingEntry?.rollback).toEqual({ outcome: 'rolled back' });
    expect(stagingEntry?.instances.map((i) => [i.name, i.rollback?.action, i.rollback?.module?.version])).toEqual([
      ['backend', 'deleted', undefined],
      ['frontend', 'restored', '1.4.0'],
    ]);

    // The live state equals the one before the run, field by field; Timoni's record byte for byte.
    const after = await liveState(staging);
    expect(after.deployment.spec).toEqual(before.deployment.spec);
    expect(after.deployment.labels).toEqual(before.deployment.labels);
    expect(after.deployment.annotations[neverReadyAnnotation]).toBeUndefined();
    expect(after.record.type).toBe(before.record.type);
    expect(after.record.labels).toEqual(before.record.labels);
    expect(after.record.data).toEqual(before.record.data);
    // The object 1.5.0 removed is back, the one it added gone; the new instance is deleted.
    expect(await staging.getOrNull(ref('v1', 'ServiceAccount', 'frontend'))).not.toBeNull();
    expect(await staging.getOrNull(ref('v1', 'ConfigMap', 'frontend-extra'))).toBeNull();
    expect(await staging.getOrNull(ref('v1', 'Secret', 'timoni.backend'))).toBeNull();
    expect(await staging.getOrNull(ref('apps/v1', 'Deployment', 'backend'))).toBeNull();
    // Production was not reached.
    expect(await liveState(production)).toEqual(productionBefore);

    // Reported: the log (one line per instance), the summary and the PR comment.
    expect(result.log).toMatch(/i:backend > rolled back: installed by this run, deleted/);
    expect(result.log).toMatch(/i:frontend > rolled back: module \S+ version 1\.4\.0 restored/);
    expect(result.summary).toContain('rolled back');
    expect(result.summary).toContain('Rolled back');
    const comment = commentOf((result as ActionRun & { prNumber: number }).prNumber);
    expect(comment).toContain('↩️ rolled back');
  }, 240_000);

  it('puts staging back when its test Job fails', async () => {
    // The bundle as the first test left it (1.5.0 and backend), moved to 1.6.0 without backend.
    stage.editBundle([{ from: 'version: "1.5.0"', to: 'version: "1.6.0"' }]);
    const before = await liveState(staging);
    const result = await merge({ 'on-failure': 'rollback', timeout: '20s' });
    expect(result.exitCode, result.log).toBe(1);
    const [stagingEntry, ...rest] = clustersOf(result);
    expect(rest.map((c) => c.status)).toEqual(['skipped', 'skipped']);
    expect(stagingEntry?.error?.step).toBe('wait');
    expect(stagingEntry?.error?.object).toBe(`Job/${NAMESPACE}/frontend-test`);
    expect(stagingEntry?.rollback).toEqual({ outcome: 'rolled back' });
    const after = await liveState(staging);
    expect(after.deployment).toEqual(before.deployment);
    expect(after.record.data).toEqual(before.record.data);
  }, 240_000);
});
