// CHANGELOG.md and scripts/changelog-section.mjs, which gives the release workflow a
// version's notes: the section between the version's heading and the next one, its link
// definitions left out; a version without a dated, non-empty section is an error. The
// repository's CHANGELOG.md keeps Keep a Changelog's form and has a dated section for
// package.json's version.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { changelogSection } from '../../scripts/changelog-section.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = `${root}scripts/changelog-section.mjs`;

const sample = [
  '# Changelog',
  '',
  '## [Unreleased]',
  '',
  '### Added',
  '- not yet released',
  '',
  '## [0.2.0] - 2026-12-24',
  '',
  'Intro of 0.2.0.',
  '',
  '### Changed',
  '- `mode` renamed',
  '',
  '## [0.1.0] - 2026-11-27',
  '',
  '### Added',
  '- the first release',
  '',
  '[Unreleased]: https://github.com/o/r/compare/v0.2.0...HEAD',
  '[0.2.0]: https://github.com/o/r/compare/v0.1.0...v0.2.0',
  '[0.1.0]: https://github.com/o/r/releases/tag/v0.1.0',
  '',
].join('\n');

describe('changelogSection', () => {
  it("gives a version's section without its heading, up to the next version", () => {
    expect(changelogSection(sample, '0.2.0')).toBe('Intro of 0.2.0.\n\n### Changed\n- `mode` renamed');
  });

  it("leaves the link definitions at the changelog's end out of the last section", () => {
    expect(changelogSection(sample, '0.1.0')).toBe('### Added\n- the first release');
  });

  it('takes a tag as well as a version, and CRLF line ends', () => {
    expect(changelogSection(sample.replace(/\n/g, '\r\n'), 'v0.1.0')).toBe('### Added\n- the first release');
  });

  it('refuses a version without a section, naming it', () => {
    expect(() => changelogSection(sample, '0.3.0')).toThrow('CHANGELOG.md has no section "## [0.3.0] - YYYY-MM-DD"');
    expect(() => changelogSection(sample, '0.1')).toThrow('no section');
  });

  it('refuses an undated section (a release is dated) and Unreleased', () => {
    expect(() => changelogSection(sample.replace('## [0.2.0] - 2026-12-24', '## [0.2.0]'), '0.2.0')).toThrow(
      "CHANGELOG.md's section of 0.2.0 has no release date",
    );
    expect(() => changelogSection(sample, 'Unreleased')).toThrow('has no release date');
  });

  it('refuses an empty section and a version given twice', () => {
    const empty = sample.replace('Intro of 0.2.0.\n\n### Changed\n- `mode` renamed\n', '');
    expect(() => changelogSection(empty, '0.2.0')).toThrow("CHANGELOG.md's section of 0.2.0 is empty");
    const twice = `${sample}\n## [0.1.0] - 2026-11-28\n\n- again\n`;
    expect(() => changelogSection(twice, '0.1.0')).toThrow('CHANGELOG.md has 2 sections for 0.1.0');
  });
});

describe('scripts/changelog-section.mjs as the release workflow runs it', () => {
  const version = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version;

  it("prints the section of package.json's version from the repository's CHANGELOG.md", () => {
    const notes = execFileSync(process.execPath, [script, `v${version}`], { encoding: 'utf8' });
    expect(notes).toBe(`${changelogSection(readFileSync(`${root}CHANGELOG.md`, 'utf8'), version)}\n`);
    expect(notes).toContain('### Added');
    expect(notes).not.toContain('## [');
  });

  it('exits 1 naming the file and the version when there is no section', () => {
    const result = spawnSync(process.execPath, [script, 'v99.0.0'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('CHANGELOG.md: CHANGELOG.md has no section "## [99.0.0] - YYYY-MM-DD"');
  });

  it('exits 2 with its usage without a version', () => {
    const result = spawnSync(process.execPath, [script], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('usage: node scripts/changelog-section.mjs VERSION');
  });
});

describe('CHANGELOG.md', () => {
  const changelog = readFileSync(`${root}CHANGELOG.md`, 'utf8');
  const headings = [...changelog.matchAll(/^## (.*)$/gm)].map((match) => match[1] as string);

  it('starts with an Unreleased section, then dated versions, newest first', () => {
    expect(headings[0]).toBe('[Unreleased]');
    const versions = headings.slice(1).map((heading) => {
      const match = /^\[(\d+)\.(\d+)\.(\d+)\] - \d{4}-\d{2}-\d{2}$/.exec(heading);
      expect(match, `"## ${heading}" is "## [X.Y.Z] - YYYY-MM-DD"`).not.toBeNull();
      return (match as RegExpExecArray).slice(1).map(Number);
    });
    const newestFirst = [...versions].sort((a, b) => (b[0]! - a[0]!) * 1e6 + (b[1]! - a[1]!) * 1e3 + (b[2]! - a[2]!));
    expect(versions).toEqual(newestFirst);
  });

  it("has a section for package.json's version, and a link for each heading", () => {
    const version = (JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }).version;
    expect(headings.some((heading) => heading.startsWith(`[${version}] - `))).toBe(true);
    for (const heading of headings) {
      const name = /^\[([^\]]+)\]/.exec(heading)?.[1] as string;
      expect(changelog, `a link definition for [${name}]`).toMatch(
        new RegExp(`^\\[${name.replace(/\./g, '\\.')}\\]: https://`, 'm'),
      );
    }
  });
});
