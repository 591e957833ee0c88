// The flags of each command and the limits they set. `timoni-fleet <command> --help` lists
// the flags that command reads, and no other: status does not offer apply's --wait or
// --force; a flag of another command is refused; every command that reaches a cluster takes
// the identity flags, and only apply and diff may record. --deadline ends a diff that waits on a
// cluster that never answers, and --cue-memory-limit is checked before the engine starts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCliCaptured } from './run-cli.js';

const help = async (command: string) => {
  const result = await runCliCaptured([command, '--help'], { cwd: '/' });
  expect(result.code).toBe(0);
  return [...result.stdout.matchAll(/--([a-z-]+)/g)].map((match) => match[1]);
};

describe('command help', () => {
  it('lists only the flags each fleet command reads', async () => {
    const apply = await help('apply');
    for (const flag of [
      'wait',
      'timeout',
      'prune',
      'prune-removed-instances',
      'force',
      'overwrite-ownership',
      'creds',
      'deadline',
      'kubeconfig',
    ])
      expect(apply).toContain(flag);
    // apply applies one cluster at a time (or --max-parallel per wave): --concurrency, the clusters diffed at once, is diff's.
    expect(apply).not.toContain('concurrency');
    const diff = await help('diff');
    expect(diff).toEqual(
      expect.arrayContaining(['force', 'overwrite-ownership', 'prune', 'creds', 'concurrency', 'deadline']),
    );
    expect(diff).not.toContain('wait');
    expect(diff).not.toContain('timeout');
    const status = await help('status');
    expect(status).toEqual(expect.arrayContaining(['kubeconfig', 'runtime-cluster', 'deadline']));
    for (const flag of ['wait', 'timeout', 'prune', 'force', 'overwrite-ownership', 'creds', 'concurrency'])
      expect(status).not.toContain(flag);
    const remove = await help('delete');
    expect(remove).toEqual(expect.arrayContaining(['wait', 'timeout', 'deadline']));
    for (const flag of ['prune', 'force', 'overwrite-ownership', 'creds', 'concurrency'])
      expect(remove).not.toContain(flag);
    expect(await help('build')).toContain('mask-secrets');
    expect(await help('vet')).not.toContain('mask-secrets');
  });

  it('offers the rollout strategy to apply only', async () => {
    expect(await help('apply')).toEqual(expect.arrayContaining(['strategy', 'max-parallel']));
    for (const command of ['diff', 'status', 'delete']) {
      const flags = await help(command);
      expect(flags, command).not.toContain('strategy');
      expect(flags, command).not.toContain('max-parallel');
    }
    const result = await runCliCaptured(['apply', '--help'], { cwd: '/' });
    expect(result.stdout).toMatch(/--strategy.*sequential.*waves/);
  });

  it('offers the cluster identity flags to every command that reaches a cluster, recording to apply and diff only', async () => {
    for (const command of ['diff', 'apply', 'status', 'delete', 'vet', 'build']) {
      expect(await help(command), command).toEqual(
        expect.arrayContaining(['cluster-identity', 'cluster-identity-record', 'repin-cluster']),
      );
    }
    for (const command of ['status', 'delete', 'vet', 'build']) {
      const result = await runCliCaptured([command, '-f', 'bundle.cue', '--cluster-identity', 'record'], { cwd: '/' });
      // A bad flag is a failure: 2 where 1 means drift or not deployed, 1 in vet and build (as Timoni).
      expect(result.code, command).toBe(command === 'vet' || command === 'build' ? 1 : 2);
      expect(result.stderr, command).toContain('--cluster-identity must be one of check, off, not "record"');
      const help = await runCliCaptured([command, '--help'], { cwd: '/' });
      expect(help.stdout, command).toMatch(
        /--cluster-identity check\|off +check: refuse a cluster recorded under another runtime name before .*only apply records/,
      );
      expect(help.stdout, command).toMatch(
        /--repin-cluster value +Take this runtime cluster as re-pinned: .* its record not rewritten/,
      );
    }
  });

  it('refuses a flag that belongs to another command', async () => {
    const result = await runCliCaptured(['status', '-f', 'bundle.cue', '--wait'], { cwd: '/' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown flag --wait');
  });
});

describe('CLI limits', () => {
  let blackHole: Server;
  const sockets: Socket[] = [];
  let dir: string;

  beforeAll(async () => {
    blackHole = createServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    const port = (blackHole.address() as { port: number }).port;
    dir = mkdtempSync(join(tmpdir(), 'cli-limits-'));
    writeFileSync(
      join(dir, 'kubeconfig'),
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'hole',
        clusters: [
          { name: 'hole', cluster: { server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } },
        ],
        users: [{ name: 'hole', user: { token: 'hole-token-1234' } }],
        contexts: [{ name: 'hole', context: { cluster: 'hole', user: 'hole' } }],
      }),
    );
    writeFileSync(
      join(dir, 'bundle.cue'),
      'bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "limits"\n\tinstances: {}\n}\n',
    );
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => blackHole.close(resolve));
  });

  it('--deadline ends a diff that waits on a cluster that never answers', async () => {
    const started = Date.now();
    const result = await runCliCaptured(
      ['diff', '-f', 'bundle.cue', '--kubeconfig', 'kubeconfig', '--deadline', '2s'],
      { cwd: dir },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /the run reached its deadline while cluster _default was at step connect for [0-9.]+ s: its work was abandoned/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('checks --deadline and --cue-memory-limit', async () => {
    const badDeadline = await runCliCaptured(['diff', '-f', 'bundle.cue', '--deadline', 'soon'], { cwd: dir });
    expect(badDeadline.code).toBe(2);
    expect(badDeadline.stderr).toContain('--deadline must be a duration such as 30m or 90s, not "soon"');
    const badMemory = await runCliCaptured(['vet', '-f', 'bundle.cue', '--cue-memory-limit', '10'], { cwd: dir });
    expect(badMemory.code).toBe(1);
    expect(badMemory.stderr).toContain('--cue-memory-limit must be a whole number of MiB from 64 to 4096, not "10"');
  });

  it('checks --strategy and --max-parallel', async () => {
    const badStrategy = await runCliCaptured(
      ['apply', '-f', 'bundle.cue', '--kubeconfig', 'kubeconfig', '--strategy', 'parallel'],
      { cwd: dir },
    );
    expect(badStrategy.code).toBe(2);
    expect(badStrategy.stderr).toContain('--strategy must be one of sequential, waves, not "parallel"');
    for (const value of ['0', '-1', '1.5', 'many']) {
      const badMax = await runCliCaptured(
        ['apply', '-f', 'bundle.cue', '--kubeconfig', 'kubeconfig', '--strategy', 'waves', '--max-parallel', value],
        { cwd: dir },
      );
      expect(badMax.code, value).toBe(2);
      expect(badMax.stderr).toContain(`--max-parallel must be a whole number of clusters, 1 or more, not "${value}"`);
    }
  });
});
