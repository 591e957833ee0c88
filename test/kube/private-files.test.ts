import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removePrivateFiles, writePrivateFile } from '../../src/kube/private-files.js';

describe('private files', () => {
  it('writes files mode 0600 in a folder mode 0700, and refuses paths', () => {
    const path = writePrivateFile('kubeconfig', 'secret: yes\n');
    expect(readFileSync(path, 'utf8')).toBe('secret: yes\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(() => writePrivateFile('../escape', 'x')).toThrow(/invalid private file name/);
    removePrivateFiles();
    expect(existsSync(dirname(path))).toBe(false);
  });

  it('removes the folder when the process exits', () => {
    const module = join(import.meta.dirname, '../../src/kube/private-files.ts');
    const tsx = join(import.meta.dirname, '../../node_modules/.bin/tsx');
    const script = `import { writePrivateFile } from ${JSON.stringify(module)}; console.log(writePrivateFile('token', 'abc'));`;
    const printed = execFileSync(tsx, ['--eval', script], { encoding: 'utf8' }).trim();
    expect(printed).toMatch(/timoni-fleet-.*\/token$/);
    expect(existsSync(printed)).toBe(false);
    expect(existsSync(dirname(printed))).toBe(false);
  });
});
