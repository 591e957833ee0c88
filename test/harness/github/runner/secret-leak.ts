// Fails a test when a secret shows up where someone could read it: the printed lines
// (unmasked: a leak hidden by masking is still a leak; only the ::add-mask:: lines
// that register secrets are exempt), annotation and other command messages, outputs,
// the job summary, exported env and state, and any extra texts (posted comments).
// Encoded forms (JSON-escaped, URI-escaped, base64) count as the secret.
import type { ActionRun } from './run-action.js';
import { encodings } from './secret-masker.js';

interface Place {
  where: string;
  text: string;
}

function places(run: ActionRun, extraTexts: readonly string[]): Place[] {
  const out: Place[] = [];
  run.lines.forEach((line, i) => {
    if (/^\s*::add-mask::/.test(line.text)) return;
    out.push({ where: `${line.stream} line ${i + 1}`, text: line.text });
  });
  for (const c of run.commands) {
    if (c.command === 'add-mask') continue;
    out.push({ where: `::${c.command}:: message`, text: c.message });
    for (const [k, v] of Object.entries(c.properties)) out.push({ where: `::${c.command}:: property ${k}`, text: v });
  }
  for (const [k, v] of Object.entries(run.outputs)) out.push({ where: `output '${k}'`, text: `${k}=${v}` });
  for (const [k, v] of Object.entries(run.exportedEnv)) out.push({ where: `GITHUB_ENV '${k}'`, text: `${k}=${v}` });
  for (const [k, v] of Object.entries(run.state)) out.push({ where: `GITHUB_STATE '${k}'`, text: `${k}=${v}` });
  out.push({ where: 'job summary', text: run.summary });
  extraTexts.forEach((text, i) => out.push({ where: `extra text ${i + 1}`, text }));
  return out;
}

/** Throws, naming each place (never the secret itself), when any secret appears. */
export function assertNoSecretLeak(
  run: ActionRun,
  secrets: readonly string[],
  extraTexts: readonly string[] = [],
): void {
  const found: string[] = [];
  secrets.forEach((secret, index) => {
    if (secret === '') throw new Error(`assertNoSecretLeak: secret #${index + 1} is empty`);
    const forms = [secret, ...encodings(secret)];
    for (const place of places(run, extraTexts)) {
      if (forms.some((form) => place.text.includes(form)))
        found.push(`secret #${index + 1} (${secret.length} characters) in ${place.where}`);
    }
  });
  if (found.length > 0) throw new Error(`secret leak: ${found.join('; ')}`);
}
