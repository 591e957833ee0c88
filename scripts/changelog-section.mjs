#!/usr/bin/env node
// Prints the section of one version of CHANGELOG.md (Keep a Changelog form), without its
// heading: the release notes of that version. The release workflow gives it the tag's
// version; a version without a dated section, or with an empty one, is an error, so a
// release never goes out with notes that were not written.
//
//   node scripts/changelog-section.mjs 0.1.0 [CHANGELOG.md]   (a tag such as v0.1.0 too)
//
// Runs with Node.js alone (built-in modules only).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `## [0.1.0] - 2026-11-27`, `## [Unreleased]`: a version section's heading. */
const SECTION_HEADING = /^## \[([^\]]+)\](.*)$/;
/** The link definitions Keep a Changelog puts at the end: `[0.1.0]: https://...`. */
const VERSION_LINK = /^\[(?:unreleased|v?\d+\.\d+\.\d+[^\]]*)\]:\s/i;
const DATE_SUFFIX = /^ - \d{4}-\d{2}-\d{2}\s*$/;

/**
 * The text of `version`'s section of `changelog` (between its heading and the next `## `
 * heading, the version link definitions at the end left out), trimmed.
 * Throws, naming the version, when the section is missing, given twice, undated or empty.
 * @param {string} changelog the whole CHANGELOG.md
 * @param {string} version `0.1.0`, or a tag `v0.1.0`
 * @returns {string}
 */
export function changelogSection(changelog, version) {
  const wanted = version.replace(/^v(?=\d)/, '');
  const lines = changelog.replace(/\r\n?/g, '\n').split('\n');
  const starts = [];
  for (const [index, line] of lines.entries()) {
    const heading = SECTION_HEADING.exec(line);
    if (heading && heading[1] === wanted) starts.push({ index, rest: heading[2] ?? '' });
  }
  if (starts.length === 0) throw new Error(`CHANGELOG.md has no section "## [${wanted}] - YYYY-MM-DD"`);
  if (starts.length > 1) throw new Error(`CHANGELOG.md has ${starts.length} sections for ${wanted}: keep one`);
  const start = starts[0];
  if (!DATE_SUFFIX.test(start.rest)) {
    throw new Error(`CHANGELOG.md's section of ${wanted} has no release date: write "## [${wanted}] - YYYY-MM-DD"`);
  }
  let end = lines.findIndex((line, index) => index > start.index && line.startsWith('## '));
  if (end === -1) end = lines.length;
  const body = lines.slice(start.index + 1, end);
  while (body.length > 0 && (body.at(-1)?.trim() === '' || VERSION_LINK.test(body.at(-1) ?? ''))) body.pop();
  const text = body.join('\n').trim();
  if (text === '') throw new Error(`CHANGELOG.md's section of ${wanted} is empty`);
  return text;
}

function main(argv) {
  const [version, file] = argv;
  if (!version || argv.length > 2) {
    console.error('usage: node scripts/changelog-section.mjs VERSION [CHANGELOG.md]');
    return 2;
  }
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const path = file ?? join(root, 'CHANGELOG.md');
  try {
    process.stdout.write(`${changelogSection(readFileSync(path, 'utf8'), version)}\n`);
    return 0;
  } catch (error) {
    console.error(`changelog-section: ${path}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
