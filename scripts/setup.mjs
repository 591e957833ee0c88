#!/usr/bin/env node
// Installs what `npm test`, `npm run demo`, `npm run fleet` and `npm run bench` need on a
// fresh clone: the npm packages (Node 24 among them, which runs the tests), then the
// local fleet's binaries (built from Go modules and cached outside the repository).
// Runs with the system's Node.js and only its built-in modules.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const say = (message) => {
  if (!quiet) console.error(`setup: ${message}`);
};

function ensureNpmPackages() {
  const lock = readFileSync(join(root, 'package-lock.json'));
  const digest = createHash('sha256').update(lock).digest('hex');
  const stamp = join(root, 'node_modules', '.timoni-fleet-setup');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  say('installing npm packages (npm ci)');
  execFileSync('npm', ['ci', '--no-fund', '--no-audit'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  writeFileSync(stamp, digest);
}

function ensureFleetBinaries() {
  const build = join(root, 'test', 'harness', 'fleet', 'build.ts');
  if (!existsSync(build)) return;
  const tsx = join(root, 'node_modules', '.bin', 'tsx');
  execFileSync(tsx, [build, ...(quiet ? ['--quiet'] : [])], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
}

ensureNpmPackages();
ensureFleetBinaries();
