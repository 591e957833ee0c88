// What a report may show. Two rules, applied to every string of a ChangeSet before it is
// rendered (names, diffs, error messages):
//
// Secrets. The masking rule itself (which values are secret, how they are masked) is
// src/secrets.ts, the one rule of the project; this file applies it to a ChangeSet, and
// finds the changes that touch secret data so that a report can say "a secret value
// changed (hidden)" where it cannot show the value. A change touches secret data when a
// changed line of its unified diff (`+`/`-`, not the `+++`/`---` header) holds either sign:
//   - the engine's masks for Secret data: `*** (before)` and `*** (after)`, or `***` alone;
//   - a value from the secrets list (kubeconfig credentials, values from cluster Secrets or
//     from the environment), before the report masks it.
//
// Text that reads otherwise than it is. Reviewers approve what they read, so nothing from
// the user's files may read otherwise than what is applied, nor pass for a part of the
// report that the action reads back:
//   - every character that does not show as itself, by Unicode property (NOT_SHOWN in
//     ../display-text.ts, the one rule of the project: controls but tab and line feed,
//     format characters with the bidirectional controls, default ignorable code points,
//     variation selectors, tags, separators, spaces other than U+0020, private use,
//     unassigned) is shown escaped: `\u202E`, `\u00AD`, `\u{E0041}` beyond U+FFFF;
//   - the opening of our hidden blocks, `<!-- timoni-fleet` (the comment's marker and its
//     review record, reviewed-block.ts), is shown as `\u003C!-- timoni-fleet`, so that a
//     diff or an error message can never hold a block the action would read back (in
//     Markdown and HTML contexts `<` is an entity anyway; code blocks show text verbatim).
// Each object whose diff holds either is named under its diff (`hiddenTextNote`).

import type { ChangeSet, ObjectChange } from '../changeset.js';
import { NOT_SHOWN, notShownIn } from '../display-text.js';
import { maskableValues, secretMasker } from '../secrets.js';
import { changeId } from './budget.js';

/**
 * A copy of the ChangeSet with every string masked (names, module references, diffs, error
 * messages, and strings in extra fields such as readiness messages), except the
 * enumerations the reports branch on (`mode`, `status`, `action`): their values are fixed
 * words, never secrets, and masking one that happens to equal a secret would corrupt the
 * report.
 */
export function maskChangeSet<T extends ChangeSet>(changeSet: T, secrets: readonly string[]): T {
  const mask = secretMasker(secrets);
  // The copy has the same shape as the input: maskDeep maps strings (values and keys) to strings.
  return maskDeep(changeSet, mask) as T;
}

const ENUMERATIONS = new Set(['mode', 'status', 'action']);

function maskDeep(value: unknown, mask: (text: string) => string): unknown {
  if (typeof value === 'string') return mask(value);
  if (Array.isArray(value)) return value.map((item) => maskDeep(item, mask));
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    // Keys are masked too: the desired-state digests are keyed by instance and object names.
    for (const [key, item] of Object.entries(value))
      copy[mask(key)] = ENUMERATIONS.has(key) && typeof item === 'string' ? item : maskDeep(item, mask);
    return copy;
  }
  return value;
}

// The engine's mask as the value of a changed line: `key: ***`, `key: *** (before)`, `- ***`.
const ENGINE_MASK = /(^|[\s:])\*\*\*( \((before|after)\))?\s*$/;

function changedLines(diff: string): string[] {
  return diff
    .split('\n')
    .filter(
      (line) => (line.startsWith('+') && !line.startsWith('+++')) || (line.startsWith('-') && !line.startsWith('---')),
    );
}

/** True when a changed line of the diff holds a masked value or one of the secrets. */
export function diffChangesSecret(diff: string, secrets: readonly string[] = []): boolean {
  const values = maskableValues(secrets);
  return changedLines(diff).some(
    (line) => ENGINE_MASK.test(line.slice(1)) || values.some((value) => line.includes(value)),
  );
}

/** True when the object's change touches secret data. */
export function objectChangesSecret(change: ObjectChange, secrets: readonly string[] = []): boolean {
  if (change.action === 'unchanged' || change.action === 'skipped') return false;
  return diffChangesSecret(change.diff, secrets);
}

/** True when any object of any cluster changes secret data. */
export function changeSetChangesSecret(changeSet: ChangeSet, secrets: readonly string[] = []): boolean {
  return changeSet.clusters.some((cluster) =>
    cluster.instances.some((instance) => instance.changes.some((change) => objectChangesSecret(change, secrets))),
  );
}

/** Ids (changeId) of the changes whose diff touches secret data; read from the unmasked ChangeSet. */
export function secretChangeIds(changeSet: ChangeSet, secrets: readonly string[]): Set<string> {
  const ids = new Set<string>();
  changeSet.clusters.forEach((cluster, clusterIndex) =>
    cluster.instances.forEach((instance, instanceIndex) =>
      instance.changes.forEach((change, objectIndex) => {
        if (objectChangesSecret(change, secrets)) ids.add(changeId(clusterIndex, instanceIndex, objectIndex));
      }),
    ),
  );
  return ids;
}

// ---------------------------------------------------------------------------------------
// Text that reads otherwise than it is (see the header).

const HIDDEN_BLOCK_OPENING = /<(!--\s*timoni-fleet)/gi;
/** How many of the escaped characters a note names by code point. */
const NAMED_CHARACTERS_LIMIT = 24;

/** The code point in hex, upper case, at least four digits: `202E`, `E0041`. */
function codePointHex(character: string): string {
  return (character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}

/** `\u202E` for U+202E, `\u{E0041}` beyond U+FFFF: how an escaped character is shown. */
function escapedForm(character: string): string {
  const hex = codePointHex(character);
  return hex.length > 4 ? `\\u{${hex}}` : `\\u${hex}`;
}

/** The text with hidden characters and the opening of our hidden blocks shown escaped. */
export function showHiddenText(text: string): string {
  return text.replace(NOT_SHOWN, escapedForm).replace(HIDDEN_BLOCK_OPENING, '\\u003C$1');
}

/** A copy of the ChangeSet with every string shown as showHiddenText shows it (enumerations aside, as when masking). */
export function showHiddenTextIn<T extends ChangeSet>(changeSet: T): T {
  return maskDeep(changeSet, showHiddenText) as T;
}

/** What a diff holds that showHiddenText escapes, in words for a reader; undefined when nothing. */
export function describeHiddenText(text: string): string | undefined {
  const characters = notShownIn(text);
  const parts: string[] = [];
  if (characters.length > 0) {
    // A diff may hold thousands of them (every tag character): the note names the first few.
    const named = characters.slice(0, NAMED_CHARACTERS_LIMIT).map((character) => `U+${codePointHex(character)}`);
    if (characters.length > named.length) named.push(`${characters.length - named.length} more`);
    const forms = named.join(', ');
    parts.push(`characters that are invisible or reorder the text around them (${forms})`);
  }
  HIDDEN_BLOCK_OPENING.lastIndex = 0;
  if (HIDDEN_BLOCK_OPENING.test(text))
    parts.push('text that opens a hidden timoni-fleet block (`\\u003C!-- timoni-fleet`)');
  HIDDEN_BLOCK_OPENING.lastIndex = 0;
  return parts.length > 0 ? parts.join(' and ') : undefined;
}

/**
 * Per change id (changeId), the note to show under the diff of an object whose diff holds
 * text that showHiddenText escapes; read from the ChangeSet before it is escaped.
 */
export function hiddenTextChangeNotes(changeSet: ChangeSet): Map<string, string> {
  const notes = new Map<string, string>();
  changeSet.clusters.forEach((cluster, clusterIndex) =>
    cluster.instances.forEach((instance, instanceIndex) =>
      instance.changes.forEach((change, objectIndex) => {
        const what = describeHiddenText(change.diff);
        if (what)
          notes.set(
            changeId(clusterIndex, instanceIndex, objectIndex),
            `⚠️ _This object holds ${what}, shown escaped above (\`\\uXXXX\`); what is applied holds the characters themselves._\n\n`,
          );
      }),
    ),
  );
  return notes;
}
