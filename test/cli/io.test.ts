// The CLI's progress log: cluster groups in runtime order whatever order they finish in,
// lines of a cluster whose turn it is printed as they come, and a memory of what was
// printed (so that a cluster's error is reported once).
import { describe, expect, it } from 'vitest';
import { CliLog, type CommandIO } from '../../src/cli/io.js';

function capture(): { io: CommandIO; lines: () => string[] } {
  let stderr = '';
  const io: CommandIO = { cwd: '/', env: {}, stdout: () => undefined, stderr: (text) => (stderr += text) };
  return { io, lines: () => stderr.split('\n').filter(Boolean) };
}

const group = (log: CliLog, title: string, ...lines: string[]) => {
  log.startGroup(title);
  for (const line of lines) log.line(line);
  log.endGroup();
};

describe('CliLog', () => {
  it('prints cluster groups in runtime order when they finish in another order', () => {
    const { io, lines } = capture();
    const log = new CliLog(io);
    log.order(['prod', 'prod-2', 'dev']);
    log.line('diffing 3 cluster(s), 3 at a time');
    group(log, 'cluster dev (dev): changed', 'dev line');
    group(log, 'cluster prod-2 (production): unchanged', 'prod-2 line');
    expect(lines()).toEqual(['diffing 3 cluster(s), 3 at a time']);
    group(log, 'cluster prod (production): changed', 'prod line');
    expect(lines()).toEqual([
      'diffing 3 cluster(s), 3 at a time',
      '── cluster prod (production): changed',
      'prod line',
      '── cluster prod-2 (production): unchanged',
      'prod-2 line',
      '── cluster dev (dev): changed',
      'dev line',
    ]);
  });

  it('flushes groups held back for a cluster that never reported', () => {
    const { io, lines } = capture();
    const log = new CliLog(io);
    log.order(['one', 'two', 'three']);
    group(log, 'cluster three (c): changed', 'three line');
    group(log, 'cluster two (b): changed', 'two line');
    expect(lines()).toEqual([]);
    log.flush();
    expect(lines()).toEqual(['── cluster two (b): changed', 'two line', '── cluster three (c): changed', 'three line']);
  });

  it('streams the lines of a group whose turn it is (apply) and remembers what it printed', () => {
    const { io, lines } = capture();
    const log = new CliLog(io);
    log.order(['one', 'two']);
    log.startGroup('cluster one (a)');
    log.line('b:x > c:one > i:web > applying module example.com/web version 1.0.0');
    expect(lines()).toEqual([
      '── cluster one (a)',
      'b:x > c:one > i:web > applying module example.com/web version 1.0.0',
    ]);
    log.line('✗ instance web is owned by bundle other');
    log.endGroup();
    expect(log.hasPrinted('instance web is owned by bundle other')).toBe(true);
    expect(log.hasPrinted('never said')).toBe(false);
  });
});
