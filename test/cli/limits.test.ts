// The CLI's time and memory limits: --deadline ends a diff that waits on a cluster that
// never answers, and --cue-memory-limit is checked before the engine starts.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCliCaptured } from './run-cli.js';

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
      clusters: [{ name: 'hole', cluster: { server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'hole', user: { token: 'hole-token-1234' } }],
      contexts: [{ name: 'hole', context: { cluster: 'hole', user: 'hole' } }],
    }),
  );
  writeFileSync(join(dir, 'bundle.cue'), 'bundle: {\n\tapiVersion: "v1alpha1"\n\tname: "limits"\n\tinstances: {}\n}\n');
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => blackHole.close(resolve));
});

describe('CLI limits', () => {
  it('--deadline ends a diff that waits on a cluster that never answers', async () => {
    const started = Date.now();
    const result = await runCliCaptured(['diff', '-f', 'bundle.cue', '--kubeconfig', 'kubeconfig', '--deadline', '2s'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the run passed its deadline while cluster _default was being diffed');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('checks --deadline and --cue-memory-limit', async () => {
    const badDeadline = await runCliCaptured(['diff', '-f', 'bundle.cue', '--deadline', 'soon'], { cwd: dir });
    expect(badDeadline.code).toBe(2);
    expect(badDeadline.stderr).toContain('--deadline must be a duration such as 30m or 90s, not "soon"');
    const badMemory = await runCliCaptured(['vet', '-f', 'bundle.cue', '--cue-memory-limit', '10'], { cwd: dir });
    expect(badMemory.code).toBe(2);
    expect(badMemory.stderr).toContain('--cue-memory-limit must be a whole number of MiB from 64 to 4096, not "10"');
  });
});
