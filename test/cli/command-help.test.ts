// `timoni-fleet <command> --help` lists the flags that command reads, and no other: status
// does not offer apply's --wait or --force; a flag of another command is refused.
import { describe, expect, it } from 'vitest';
import { runCliCaptured } from './run-cli.js';

const help = async (command: string) => {
  const result = await runCliCaptured([command, '--help'], { cwd: '/' });
  expect(result.code).toBe(0);
  return [...result.stdout.matchAll(/--([a-z-]+)/g)].map((match) => match[1]);
};

describe('command help', () => {
  it('lists only the flags each fleet command reads', async () => {
    const apply = await help('apply');
    for (const flag of ['wait', 'timeout', 'prune', 'prune-removed-instances', 'force', 'overwrite-ownership', 'creds', 'concurrency', 'deadline', 'kubeconfig']) expect(apply).toContain(flag);
    const diff = await help('diff');
    expect(diff).toEqual(expect.arrayContaining(['force', 'overwrite-ownership', 'prune', 'creds', 'concurrency', 'deadline']));
    expect(diff).not.toContain('wait');
    expect(diff).not.toContain('timeout');
    const status = await help('status');
    expect(status).toEqual(expect.arrayContaining(['kubeconfig', 'runtime-cluster', 'deadline']));
    for (const flag of ['wait', 'timeout', 'prune', 'force', 'overwrite-ownership', 'creds', 'concurrency']) expect(status).not.toContain(flag);
    const remove = await help('delete');
    expect(remove).toEqual(expect.arrayContaining(['wait', 'timeout', 'deadline']));
    for (const flag of ['prune', 'force', 'overwrite-ownership', 'creds', 'concurrency']) expect(remove).not.toContain(flag);
    expect(await help('build')).toContain('mask-secrets');
    expect(await help('vet')).not.toContain('mask-secrets');
  });

  it('refuses a flag that belongs to another command', async () => {
    const result = await runCliCaptured(['status', '-f', 'bundle.cue', '--wait'], { cwd: '/' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown flag --wait');
  });
});
