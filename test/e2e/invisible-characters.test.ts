// End to end, as a pull request's author would try it: characters that do not show, each of
// a kind the old list of escaped characters missed (issue 31), put into text a reviewer
// reads: the runtime cluster's group (the comment's table and headline, the job summary's
// table, the log's group title) and a value of the bundle (the ConfigMap's diff in the
// comment). The action runs as the runner runs it (`node dist/index.js`) on a pull request.
// Every one of them must be shown escaped (`\u00AD` in the reports, `\u00ad` JSON-style in
// the log), and none may reach the comment, the summary or the log raw.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { pullRequestEvent, runAction } from '../harness/github/index.js';
import { DEMO_REPOSITORY, type DemoStage } from '../harness/demo/demo-stage.js';
import { useDemoStage } from '../harness/demo/demo-fixture.js';

const repository = `${DEMO_REPOSITORY.owner}/${DEMO_REPOSITORY.name}`;
const NAMESPACE = 'invisible31';
const currentStage = useDemoStage(NAMESPACE);
let stage: DemoStage;

/**
 * Soft hyphen (Cf), combining grapheme joiner (Mn, default ignorable), Hangul fillers (Lo,
 * default ignorable), Mongolian vowel separator (Cf), variation selectors (Mn), tags (Cf;
 * U+E0000 unassigned), Khmer inherent vowels (Mn, default ignorable), halfwidth Hangul
 * filler, a no-break space, a private use character.
 */
const CODE_POINTS = [
  0x00ad, 0x034f, 0x115f, 0x1160, 0x3164, 0x180e, 0xfe00, 0xfe0f, 0xe0100, 0xe01ef, 0xe0000, 0xe0001, 0xe0041, 0xe007f,
  0x17b4, 0x17b5, 0xffa0, 0x00a0, 0xe000,
];
const CHARACTERS = CODE_POINTS.map((code) => String.fromCodePoint(code));
/** `q0<c0>q1<c1>q2…`: each character between markers of its own, so that each is found where it was put. */
const marked = (forms: readonly string[]): string =>
  forms.map((form, i) => `q${i}${form}`).join('') + `q${forms.length}`;

/** The CUE string literal of TEXT: `\u00AD`, `\U000E0041`. */
const cueLiteral = (): string =>
  `"${marked(CODE_POINTS.map((code) => (code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)))}"`;
/** As the reports show it escaped: `\u00AD`, `\u{E0041}`. */
const reportForm = (code: number): string => {
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex}`;
};
/** As a log line shows it: JSON-style code units, `\u00ad`, `\udb40\udc41`. */
const logForm = (character: string): string =>
  [...Array(character.length).keys()]
    .map((i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`)
    .join('');

/** The characters of CHARACTERS that the text holds raw, as U+XXXX. */
function rawIn(text: string, except: readonly string[] = []): string[] {
  return CHARACTERS.filter((c) => !except.includes(c) && text.includes(c)).map(
    (c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()}`,
  );
}

beforeAll(() => {
  stage = currentStage();
  stage.editBundle([
    { from: 'name:       "shop"', to: 'name:       "invisible31"' },
    { from: 'namespace: "shop"', to: `namespace: "${NAMESPACE}"` },
    { from: 'message: "Hello from \\(_cluster.name)"', to: `message: ${cueLiteral()}` },
  ]);
  writeFileSync(
    join(stage.workdir, 'runtime.cue'),
    `runtime: {
	apiVersion: "v1alpha1"
	name:       "invisible"
	clusters: "staging-1": {
		group:       ${cueLiteral()}
		kubeContext: "fleet-1"
	}
}
`,
  );
});

describe('characters that do not show, by Unicode property', () => {
  it('are shown escaped in the comment, the job summary and the log, and never raw', async () => {
    const pr = stage.openPullRequest(3105);
    const result = await runAction({
      event: pullRequestEvent({ action: 'opened', repository, number: pr.number, headSha: pr.headSha }),
      githubApiUrl: stage.github.url,
      token: stage.github.token,
      workdir: stage.workdir,
      inputs: { ...stage.inputs },
      env: stage.env,
      timeoutMs: 110_000,
    });
    expect(result.exitCode, result.log).toBe(0);
    const comment =
      stage.github.state.comments(DEMO_REPOSITORY.owner, DEMO_REPOSITORY.name, pr.number).at(-1)?.body ?? '';
    const log = `${result.stdout}${result.stderr}`;
    expect(comment).toContain('staging-1');

    // Raw: nowhere in the log; nowhere in the reports, but U+FE0F, which the reports' own emoji
    // hold (`⚠️`): each character is looked for between its markers there.
    expect(rawIn(log)).toEqual([]);
    expect(rawIn(comment, ['\uFE0F'])).toEqual([]);
    expect(rawIn(result.summary, ['\uFE0F'])).toEqual([]);
    for (const [i, character] of CHARACTERS.entries()) {
      const raw = `q${i}${character}q${i + 1}`;
      for (const [where, text] of Object.entries({ comment, summary: result.summary, log }))
        expect(text.includes(raw), `${where} holds U+${(character.codePointAt(0) ?? 0).toString(16)} raw`).toBe(false);
    }

    // Escaped: the value in the comment's diff, the group in the summary's table, the group in the log.
    const reported = marked(CODE_POINTS.map(reportForm));
    expect(comment).toContain(reported);
    // A table cell writes the backslash as an entity.
    expect(result.summary.replaceAll('&#92;', '\\')).toContain(reported);
    expect(log).toContain(marked(CHARACTERS.map(logForm)));
    expect(comment).toContain('This object holds characters that are invisible or reorder the text around them');
  });
});
