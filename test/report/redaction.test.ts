// What a report may show of secrets (src/report/redaction.ts): no secret value in any
// report, raw, escaped or encoded; a note where a secret changed; the engine's masks kept;
// the ChangeSet masked but for the words the reports branch on. Which values are secret and
// how they are masked is src/secrets.ts (test/secrets.test.ts).

import { describe, expect, it } from 'vitest';
import type { ChangeSet } from '../../src/changeset.js';
import { renderPullRequestComment, renderRolloutComment } from '../../src/report/comment.js';
import { renderJobSummary, renderShortJobSummary } from '../../src/report/job-summary.js';
import { escapeInline } from '../../src/report/markdown.js';
import {
  changeSetChangesSecret,
  describeHiddenText,
  diffChangesSecret,
  maskChangeSet,
  showHiddenText,
} from '../../src/report/redaction.js';
import { changeSet, cluster, hugeDiff, instance, objectChange, PODINFO_MODULE, realisticFleet } from './fixtures.js';

const TOKEN = 'eyJhbGciOiJSUzI1NiIsImtpZCI6InRlc3QifQ.kubeconfig-token';
const DB_PASSWORD = 'p@ss|word!`<x>';
const ENV_VALUE = 'sk_live_0123456789abcdef';
const secrets = [TOKEN, DB_PASSWORD, ENV_VALUE, '', 'no'];

function leakyChangeSet(mode: 'diff' | 'apply'): ChangeSet {
  const secretDiff = [
    '--- live',
    '+++ desired',
    '@@ -3,4 +3,4 @@',
    ' data:',
    '-  password: *** (before)',
    '+  password: *** (after)',
    '   username: ***',
    '',
  ].join('\n');
  const envDiff = [
    '--- live',
    '+++ desired',
    '@@ -1,3 +1,3 @@',
    ` env:`,
    `-  API_KEY: old-value-1234`,
    `+  API_KEY: ${ENV_VALUE}`,
    `+  DATABASE_URL: postgres://app:${DB_PASSWORD}@db:5432/app`,
    '',
  ].join('\n');
  const longLine = `+  blob: ${'a'.repeat(500)}${ENV_VALUE}${'b'.repeat(500)}\n`;
  return changeSet(
    [
      cluster(
        'staging-eu-1',
        'staging',
        [
          instance(
            'podinfo',
            [
              objectChange({ kind: 'Secret', name: 'db', action: 'configured', diff: secretDiff }),
              objectChange({ kind: 'ConfigMap', name: 'env', action: 'configured', diff: envDiff }),
              objectChange({
                kind: 'ConfigMap',
                name: `cfg-${ENV_VALUE}`,
                action: 'created',
                diff: `${hugeDiff(3000, 'x')}${longLine}`,
              }),
            ],
            { ...PODINFO_MODULE, url: `oci://robot:${TOKEN}@registry.example.com/podinfo` },
          ),
        ],
        {
          status: mode === 'apply' ? 'failed' : 'changed',
          kubeContext: `ctx-${ENV_VALUE}`,
          error: { step: 'apply', message: `Unauthorized: token ${TOKEN} rejected; password ${DB_PASSWORD}` },
        },
      ),
      cluster('production-eu-1', 'production', [], { status: mode === 'apply' ? 'skipped' : 'unchanged' }),
    ],
    mode,
  );
}

const context = {
  commitSha: '0123456789abcdef0123456789abcdef01234567',
  runUrl: 'https://github.com/acme/fleet/actions/runs/1',
  secrets,
};

const renderings: [string, () => string][] = [
  ['PR comment', () => renderPullRequestComment(leakyChangeSet('diff'), context)],
  ['PR comment, tight budget', () => renderPullRequestComment(leakyChangeSet('diff'), { ...context, maxSize: 4_000 })],
  ['rollout comment', () => renderRolloutComment(leakyChangeSet('apply'), context)],
  ['job summary', () => renderJobSummary(leakyChangeSet('apply'), context)],
  ['job summary, tight budget', () => renderJobSummary(leakyChangeSet('diff'), { ...context, maxSize: 20_000 })],
  ['short job summary', () => renderShortJobSummary(leakyChangeSet('diff'), context)],
];

describe.each(renderings)('%s', (_name, render) => {
  it('contains no secret value, raw, escaped or base64-encoded', () => {
    const text = render();
    for (const secret of [TOKEN, DB_PASSWORD, ENV_VALUE]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(escapeInline(secret));
      expect(text).not.toContain(Buffer.from(secret).toString('base64'));
    }
    expect(text).not.toContain('p@ss');
    expect(text).not.toContain('p&#64;ss');
  });

  it('says that a secret value changed', () => {
    expect(render()).toContain('🔒 A secret value changed (hidden).');
  });
});

describe('engine masks', () => {
  it('are kept as the engine wrote them, not undone', () => {
    const comment = renderPullRequestComment(leakyChangeSet('diff'), context);
    expect(comment).toContain('-  password: *** (before)\n+  password: *** (after)\n   username: ***\n');
    expect(comment).toContain(
      '<summary><code>Secret/apps/db</code> configured · 🔒 a secret value changed (hidden)</summary>',
    );
  });

  it('leave a report without secrets untouched by masking', () => {
    const clean = changeSet([
      cluster('c', 'g', [
        instance('podinfo', [
          objectChange({ kind: 'ConfigMap', name: 'x', action: 'configured', diff: '-  a: 1\n+  a: 2\n' }),
        ]),
      ]),
    ]);
    expect(renderPullRequestComment(clean, { ...context, secrets })).toBe(
      renderPullRequestComment(clean, { ...context, secrets: [] }),
    );
    expect(renderPullRequestComment(clean, context)).not.toContain('🔒');
  });
});

describe('maskChangeSet', () => {
  it('masks strings but never the status, action or mode words', () => {
    const set = realisticFleet();
    const masked = maskChangeSet(set, ['configured', 'changed', 'podinfo', 'diff']);
    expect(masked.mode).toBe('diff');
    expect(masked.clusters[0]?.status).toBe('changed');
    expect(masked.clusters[0]?.instances[0]?.changes[2]?.action).toBe('configured');
    expect(masked.clusters[0]?.instances[0]?.name).toBe('***');
    expect(set.clusters[0]?.instances[0]?.name).toBe('podinfo');
  });
});

describe('secret changes', () => {
  it('recognises the engine masks on changed lines', () => {
    expect(diffChangesSecret('--- live\n+++ desired\n-  password: *** (before)\n+  password: *** (after)\n')).toBe(
      true,
    );
    expect(diffChangesSecret('--- live\n+++ desired\n+  token: ***\n')).toBe(true);
  });

  it('ignores masks on context lines and ordinary asterisks', () => {
    expect(diffChangesSecret('--- live\n+++ desired\n   password: ***\n-  replicas: 1\n+  replicas: 2\n')).toBe(false);
    expect(diffChangesSecret('+  note: "***important***"\n')).toBe(false);
  });

  it('recognises a listed secret value on a changed line', () => {
    expect(diffChangesSecret('+  DATABASE_URL: postgres://u:pa55word@db\n', ['pa55word'])).toBe(true);
    expect(diffChangesSecret('   DATABASE_URL: postgres://u:pa55word@db\n', ['pa55word'])).toBe(false);
  });

  it('finds a secret change anywhere in a ChangeSet, but not in unchanged objects', () => {
    const secretDiff = '-  password: *** (before)\n+  password: *** (after)\n';
    const changing = changeSet([
      cluster('c1', 'g', [
        instance('app', [objectChange({ kind: 'Secret', name: 'db', action: 'configured', diff: secretDiff })]),
      ]),
    ]);
    const idle = changeSet([
      cluster('c1', 'g', [
        instance('app', [objectChange({ kind: 'Secret', name: 'db', action: 'unchanged', diff: secretDiff })]),
      ]),
    ]);
    expect(changeSetChangesSecret(changing)).toBe(true);
    expect(changeSetChangesSecret(idle)).toBe(false);
  });
});

/** One of each kind the old list missed: soft hyphen, CGJ, Hangul fillers, U+180E, a variation selector, U+17B4, a tag, a selector beyond U+FFFF. */
const HIDDEN = '\u00AD\u034F\u115F\u3164\u180Ex\uFE0Fy\u17B4\u{E0041}\u{E0100}';

describe('text that reads otherwise than it is', () => {
  // A value whose right-to-left override makes `replicas: 1 # admin=false` read differently, and a zero-width space in a name.
  const bidi = 'role: "user\u202E\u2066 nimda\u2069\u2066"';
  const hiddenDiff = [
    '--- live',
    '+++ desired',
    '@@ -1,2 +1,2 @@',
    ' data:',
    '-  role: user',
    `+  ${bidi}`,
    '+  host: "exa\u200Bmple.com\uFEFF"',
    '',
  ].join('\n');
  const hostile = () =>
    changeSet([
      cluster(
        'staging-1',
        'staging',
        [
          instance('web', [
            objectChange({ kind: 'ConfigMap', name: 'roles', action: 'configured', diff: hiddenDiff }),
            objectChange({
              kind: 'ConfigMap',
              name: 'plain',
              action: 'configured',
              diff: '--- live\n+++ desired\n-a: 1\n+a: 2\n',
            }),
          ]),
        ],
        {
          status: 'changed',
          error: { step: 'diff', message: 'refused \u202Egnirts' },
        },
      ),
    ]);

  it('shows bidirectional controls and invisible characters escaped, and the opening of our blocks', () => {
    expect(showHiddenText('a\u202Eb\u200Bc\uFEFF\u2066d\u2069\u061C')).toBe(
      'a\\u202Eb\\u200Bc\\uFEFF\\u2066d\\u2069\\u061C',
    );
    expect(showHiddenText('x <!-- timoni-fleet:reviewed {} --> <!--TIMONI-FLEET:bundle=a -->')).toBe(
      'x \\u003C!-- timoni-fleet:reviewed {} --> \\u003C!--TIMONI-FLEET:bundle=a -->',
    );
    expect(showHiddenText('plain <!-- other --> text, é, 中文')).toBe('plain <!-- other --> text, é, 中文');
    expect(describeHiddenText('a\u202Eb\u200B')).toBe(
      'characters that are invisible or reorder the text around them (U+200B, U+202E)',
    );
    expect(describeHiddenText('plain')).toBeUndefined();
  });

  it('shows every character that does not show escaped by its property: soft hyphen, fillers, selectors, tags', () => {
    // Each of a kind the old list missed (issue 31): Cf, Mn and Lo default ignorables, variation selectors, tags.
    expect(showHiddenText('a\u00ADb\u034Fc\u115Fd\u3164e\u180Ef\uFE0Fg\u17B4h')).toBe(
      'a\\u00ADb\\u034Fc\\u115Fd\\u3164e\\u180Ef\\uFE0Fg\\u17B4h',
    );
    expect(showHiddenText('x\u{E0100}y\u{E0001}\u{E0061}\u{E007F}z')).toBe(
      'x\\u{E0100}y\\u{E0001}\\u{E0061}\\u{E007F}z',
    );
    // Tab and line feed stay (a diff's lines), every other control is shown.
    expect(showHiddenText('a\tb\nc\u001b[1m\rd')).toBe('a\tb\nc\\u001B[1m\\u000Dd');
    expect(describeHiddenText('a\u00AD\u{E0041}b')).toBe(
      'characters that are invisible or reorder the text around them (U+00AD, U+E0041)',
    );
    // Every tag character in one value: the note names the first few and counts the rest.
    let tags = '';
    for (let code = 0xe0000; code <= 0xe007f; code++) tags += String.fromCodePoint(code);
    const note = describeHiddenText(tags) ?? '';
    expect(note).toContain('U+E0000, U+E0001,');
    expect(note).toContain(', 104 more)');
    expect(showHiddenText(tags)).not.toMatch(/\p{Cf}/u);
  });

  it.each([
    ['PR comment', () => renderPullRequestComment(hostile(), context)],
    ['rollout comment', () => renderRolloutComment({ ...hostile(), mode: 'apply' }, context)],
    ['job summary', () => renderJobSummary(hostile(), context)],
  ])('%s: no such character raw, each escaped, and a note under the diff that holds them', (_name, render) => {
    const text = render();
    expect(text).not.toMatch(/[\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/);
    expect(text).toContain('user\\u202E\\u2066 nimda\\u2069\\u2066');
    expect(text).toContain('exa\\u200Bmple.com\\uFEFF');
    expect(text).toContain('refused \\u202Egnirts');
    expect(
      text.match(
        /This object holds characters that are invisible or reorder the text around them \(U\+200B, U\+202E, U\+2066, U\+2069, U\+FEFF\)/g,
      ),
    ).toHaveLength(1);
  });

  it.each([
    ['PR comment', (c: ChangeSet) => renderPullRequestComment(c, context)],
    [
      'rollout comment',
      (c: ChangeSet) => renderRolloutComment({ ...c, mode: 'apply' }, context, { warnings: [`w${HIDDEN}w`] }),
    ],
    ['job summary', (c: ChangeSet) => renderJobSummary(c, { ...context, notes: [`n${HIDDEN}n`] })],
  ])('%s: a group, a warning and a note hold no character raw that does not show', (_name, render) => {
    const text = render(changeSet([cluster('staging-1', `g${HIDDEN}g`, [instance('web', [])], { status: 'changed' })]));
    // Our own emoji hold U+FE0F: the user's is looked for between its neighbours.
    for (const character of ['\u00AD', '\u034F', '\u115F', '\u3164', '\u180E', '\u17B4', '\u{E0041}', '\u{E0100}'])
      expect(text).not.toContain(character);
    expect(text).not.toContain('x\uFE0Fy');
    expect(text.replaceAll('&#92;', '\\')).toContain(
      '\\u00AD\\u034F\\u115F\\u3164\\u180Ex\\uFE0Fy\\u17B4\\u{E0041}\\u{E0100}',
    );
  });

  it('leaves ordinary input as it was', () => {
    const ordinary = changeSet([
      cluster(
        'staging-1',
        'staging',
        [
          instance('web', [
            objectChange({
              kind: 'ConfigMap',
              name: 'plain',
              action: 'configured',
              diff: '--- live\n+++ desired\n-a: 1\n+a: 2\n',
            }),
          ]),
        ],
        { status: 'changed' },
      ),
    ]);
    expect(renderPullRequestComment(ordinary, context)).not.toContain('This object holds');
  });
});
