import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CueError } from '../../../src/cue/index.js';
import { ensureBinaries } from '../binaries.js';
import { engine, engineKinds, failure } from '../engines.js';
import { fixturesDir, readFixture } from '../fixture-files.js';

describe('loads', () => {
  describe.each(engineKinds)('CueEngine.load (%s engine)', (kind) => {
    it('unifies the files of a package and keeps CUE field order in JSON', async () => {
      const cue = await engine(kind);
      const value = cue.load({
        files: {
          'b.cue': 'package app\nzeta: 1\nalpha: {second: 2, first: 1}\n',
          'a.cue': 'package app\nalpha: third: 3\nmiddle: "m"\n',
          'other/c.cue': 'package other\nignored: true\n',
        },
        package: 'app',
      });
      const json = value.toJSON() as Record<string, unknown>;
      expect(json).toEqual({ zeta: 1, alpha: { second: 2, first: 1, third: 3 }, middle: 'm' });
      // Files are read in name order (a.cue, b.cue) but CUE orders fields by first declaration
      // across the files of the package as it unifies them; the JSON keeps exactly that order.
      expect(JSON.stringify(json)).toBe('{"zeta":1,"alpha":{"second":2,"first":1,"third":3},"middle":"m"}');
      expect(Object.keys(json)).toEqual(value.fields().map((f) => f.name));
      value.free();
    });

    it('applies tags and tag variables', async () => {
      const cue = await engine(kind);
      const value = cue.load({
        files: {
          'main.cue': [
            'package main',
            'name: string @tag(name)',
            'namespace: *"default" | string @tag(namespace)',
            'replicas: *1 | int @tag(replicas, type=int)',
            'moduleVersion: string @tag(mv, var=moduleVersion)',
            'kubeVersion: string @tag(kv, var=kubeVersion)',
          ].join('\n'),
        },
        package: 'main',
        tags: ['name=podinfo', 'namespace=apps', 'replicas=3'],
        tagVars: { moduleVersion: '6.5.4', kubeVersion: '1.36.3' },
      });
      expect(value.toJSON()).toEqual({
        name: 'podinfo',
        namespace: 'apps',
        replicas: 3,
        moduleVersion: '6.5.4',
        kubeVersion: '1.36.3',
      });
      value.free();
    });

    it('loads explicit file arguments from a directory as an anonymous package', async () => {
      const cue = await engine(kind);
      const value = cue.load({
        files: {
          'deploy/bundle.cue': 'bundle: {apiVersion: "v1alpha1", name: "apps"}\n_tls: true\n',
          'deploy/runtime.cue': 'runtime: name: "fleet"\n_tls: true\n',
          'deploy/other.cue': 'bundle: name: "not-loaded"\n',
        },
        dir: 'deploy',
        args: ['bundle.cue', 'runtime.cue'],
        package: '_',
      });
      expect(value.toJSON()).toEqual({ bundle: { apiVersion: 'v1alpha1', name: 'apps' }, runtime: { name: 'fleet' } });
      // Hidden fields are shared by the files of the package and reachable by name.
      expect(value.lookup('_tls').toJSON()).toBe(true);
      value.free();
    });

    it('reports a syntax error with file, line and column under the display name', async () => {
      const cue = await engine(kind);
      const error = failure(() =>
        cue.load({
          files: { 'values.cue': 'package main\n\nvalues: {\n  a: 1\n' },
          package: 'main',
          displayNames: { 'values.cue': 'modules/app/values.cue' },
        }),
      );
      expect(error).toBeInstanceOf(CueError);
      const [diagnostic] = (error as CueError).diagnostics;
      expect(diagnostic?.positions[0]).toEqual({ file: 'modules/app/values.cue', line: 4, column: 8 });
      expect(diagnostic?.message).toMatch(/expected '}'/);
      expect(error.message).toBe(`modules/app/values.cue:4:8: ${diagnostic?.message}`);
    });

    it('reports a conflict between two files with both positions and the CUE path', async () => {
      const cue = await engine(kind);
      const error = failure(() =>
        cue.load({
          files: { 'a.cue': 'package x\nspec: replicas: 1\n', 'b.cue': 'package x\n\n\nspec: replicas: 2\n' },
          package: 'x',
          displayNames: { 'a.cue': '/repo/bundles/a.cue', 'b.cue': '/repo/bundles/b.cue' },
        }),
      ) as CueError;
      expect(error.diagnostics).toHaveLength(1);
      const [conflict] = error.diagnostics;
      expect(conflict?.path).toBe('spec.replicas');
      expect(conflict?.message).toMatch(/^conflicting values (1 and 2|2 and 1)$/);
      expect(conflict?.positions).toEqual(
        expect.arrayContaining([
          { file: '/repo/bundles/a.cue', line: 2, column: 17 },
          { file: '/repo/bundles/b.cue', line: 4, column: 17 },
        ]),
      );
      expect(error.message).toMatch(
        /^\/repo\/bundles\/[ab]\.cue:[24]:17: spec\.replicas: conflicting values [12] and [12]$/,
      );
    });

    it('reports every incomplete value on export, with its position', async () => {
      const cue = await engine(kind);
      const value = cue.load({
        files: { 'main.cue': 'package main\nimage: tag: string\nport: *80 | int\nhost: string\n' },
        package: 'main',
        displayNames: { 'main.cue': 'app/main.cue' },
      });
      const error = failure(() => value.toJSON()) as CueError;
      expect(error).toBeInstanceOf(CueError);
      expect(error.diagnostics.map((d) => [d.path, d.message, d.positions[0]])).toEqual([
        ['image.tag', 'incomplete value string', { file: 'app/main.cue', line: 2, column: 13 }],
        ['host', 'incomplete value string', { file: 'app/main.cue', line: 4, column: 7 }],
      ]);
      expect(value.validate({ concrete: true })).toEqual(error.diagnostics);
      expect(value.validate()).toEqual([]);
      value.free();
    });

    it('refuses paths that leave the virtual root', async () => {
      const cue = await engine(kind);
      const error = failure(() => cue.load({ files: { '../escape.cue': 'a: 1' } }));
      expect(error.message).toMatch(/leaves the root/);
    });

    it('takes binary file contents', async () => {
      const cue = await engine(kind);
      const value = cue.load({ files: { 'a.cue': new TextEncoder().encode('package a\nb: "bytes"\n') }, package: 'a' });
      expect(value.toJSON()).toEqual({ b: 'bytes' });
      value.free();
    });
  });
});

describe('what a load reads from the host', () => {
  const hostDir = mkdtempSync(join(tmpdir(), 'timoni-fleet-host-'));
  afterAll(() => rmSync(hostDir, { recursive: true, force: true }));

  describe.each(engineKinds)('host files (%s engine)', (kind) => {
    const module = {
      'cue.mod/module.cue': 'module: "example.com/app"\nlanguage: version: "v0.17.1"\n',
      'data.json': '{"inside": true}',
    };
    const embed = (file: string) => ({
      ...module,
      'a.cue': `@extern(embed)\npackage a\nx: _ @embed(file="${file}", type=text)\n`,
    });

    it('embeds files given in memory, and refuses a parent path and an absolute path', async () => {
      const cue = await engine(kind);
      const inside = cue.load({ files: embed('data.json'), package: 'a' });
      expect(inside.toJSON()).toEqual({ x: '{"inside": true}' });
      inside.free();
      expect(failure(() => cue.load({ files: embed('../../../../etc/passwd'), package: 'a' })).message).toBe(
        'a.cue:3:6: @embed: cannot refer to parent directory',
      );
      expect(failure(() => cue.load({ files: embed('/etc/passwd'), package: 'a' })).message).toBe(
        'a.cue:3:6: @embed: only relative files are allowed',
      );
    });

    it('reads nothing from a host folder named as the load folder, an import or an embed', async () => {
      writeFileSync(join(hostDir, 'host.cue'), 'package a\nsecret: "from the host"\n');
      writeFileSync(join(hostDir, 'host.json'), '{"secret": "from the host"}');
      const cue = await engine(kind);
      const byDir = failure(() => cue.load({ files: module, dir: hostDir, package: 'a' }));
      expect(byDir.message).not.toContain('from the host');
      const files = { ...module, 'a.cue': `@extern(embed)\npackage a\nx: _ @embed(file="host.json", type=text)\n` };
      const byEmbed = failure(() => cue.load({ files, dir: '.', package: 'a' }));
      expect(byEmbed.message).toMatch(/host\.json/);
      expect(byEmbed.message).not.toContain('from the host');
      const imported = { ...module, 'a.cue': `package a\nimport "example.com/app${hostDir}"\nx: a.secret\n` };
      expect(failure(() => cue.load({ files: imported, package: 'a' })).message).not.toContain('from the host');
    });
  });
});

describe('loads against the native cue CLI', () => {
  // The native cue CLI of the same CUE version (bench/cue-cli) as an oracle: the engine
  // must export exactly what `cue export` prints, values and key order alike.
  const run = promisify(execFile);
  let cue = '';
  const scratch = mkdtempSync(join(tmpdir(), 'timoni-fleet-cue-oracle-'));

  beforeAll(async () => {
    ({ cue } = await ensureBinaries((line) => process.stderr.write(`${line}\n`)));
  }, 900_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  async function nativeExport(dir: string, args: string[]): Promise<string> {
    const { stdout } = await run(cue, ['export', ...args, '--out', 'json'], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    return JSON.stringify(JSON.parse(stdout));
  }

  describe.each(engineKinds)('the %s engine against the native cue CLI v0.17.1', (kind) => {
    it('exports the Kubernetes module identically', async () => {
      const cue = await engine(kind);
      const root = cue.load({
        files: readFixture('k8s-app'),
        package: 'main',
        tags: ['name=podinfo', 'namespace=apps'],
        tagVars: { moduleVersion: '1.0.0', kubeVersion: '1.36.3' },
      });
      const ours = JSON.stringify(root.lookup('timoni').toJSON());
      root.free();
      const theirs = await nativeExport(join(fixturesDir, 'k8s-app'), [
        '.',
        '-t',
        'name=podinfo',
        '-t',
        'namespace=apps',
        '-t',
        'mv=1.0.0',
        '-t',
        'kv=1.36.3',
        '-e',
        'timoni',
      ]);
      expect(ours).toBe(theirs);
    });

    it('orders the fields of a multi-file package identically', async () => {
      const files = {
        'b.cue': 'package app\nzeta: 1\nalpha: {second: 2, first: 1}\nlist: [{y: 1, x: 2}]\n',
        'a.cue':
          'package app\nalpha: third: 3\nmiddle: "m"\nlist: [{z: 0}]\n#S: {k: *"d" | string, j?: int}\nwith: #S & {j: 1}\n',
      };
      for (const [name, content] of Object.entries(files)) writeFileSync(join(scratch, name), content);
      const cue = await engine(kind);
      const value = cue.load({ files, package: 'app' });
      const ours = JSON.stringify(value.toJSON());
      value.free();
      expect(ours).toBe(await nativeExport(scratch, ['.']));
    });
  });
});
