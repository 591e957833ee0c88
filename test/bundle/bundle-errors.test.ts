// Bad bundles: each error names the file, the line and the field, on stderr and, inside
// GitHub Actions, as an annotation on the file and line.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from '../cli/run-cli.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');

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
    const { stderr } = await vetFails(['-f', 'bad/bad-number.cue', '--runtime-from-env'], { REPLICAS: 'three-secret-replicas' });
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
    const { stderr, code } = await vetFails(['-f', 'multi-cluster/bundle.cue', '-r', 'multi-cluster/runtime.cue', '--runtime-group', 'qa']);
    expect(code).toBe(1);
    expect(stderr).toContain('no cluster of runtime "fleet" matches group "qa"');
  });

  it('incomplete value', async () => {
    const { stderr } = await vetFails(['-f', 'bad/incomplete.cue']);
    expect(stderr).toContain('bundle.instances.app.namespace');
    expect(stderr).toContain('bad/incomplete.cue:6:');
  });

  it('a runtime with value queries and no kubeconfig names the queries and how to give one', async () => {
    const { stderr } = await vetFails(['-f', 'queries/bundle.cue', '-r', 'queries/runtime.cue'], { KUBECONFIG: join(fixtures, 'no-such-kubeconfig') });
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
    expect(stdout).toMatch(/^::error file=bad\/wrong-api-version\.cue,line=2,col=\d+,title=CUE error at bundle\.apiVersion::/m);
  });

  it('usage errors exit 2', async () => {
    const result = await runCliCaptured(['vet'], { cwd: fixtures });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pass one or more files with -f');
  });
});
