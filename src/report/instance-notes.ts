// What the reports say beside an instance or an object beyond its action: an instance
// removed from the bundle (its objects deleted, or to be), and an object that failed with
// the API server's answer.

import type { ChangeSetMode, InstanceChanges, ObjectChange } from '../changeset.js';
import { codeBlock, escapeInline } from './markdown.js';
import type { Measure } from '../github/limits.js';
import { truncateCharacters, truncateLines } from './text-truncation.js';

/** `instance removed from the bundle: 3 objects would be deleted` (diff) or `... deleted` (apply). */
export function removedInstanceNote(instance: InstanceChanges, mode: ChangeSetMode): string {
  const count = instance.changes.filter((change) => change.action === 'deleted').length;
  const objects = count === 1 ? '1 object' : `${count} objects`;
  return `instance removed from the bundle: ${objects} ${mode === 'diff' ? 'would be deleted' : 'deleted'}`;
}

/** The action as the reports word it: a failure stands out. */
export function actionLabel(change: ObjectChange): string {
  return change.action === 'failed' ? '❌ failed' : change.action;
}

/** The one-line form of a failed object's error (first line, at most `cap` characters), escaped for inline Markdown. */
export function failedObjectInline(change: ObjectChange, measure: Measure, cap = 300): string {
  const first = (change.error ?? '').split('\n')[0] ?? '';
  const kept = truncateCharacters(first, cap, measure);
  return escapeInline(kept === first ? kept : `${kept}…`);
}

/** A failed object's error in a fenced block, capped; '' for other actions. */
export function failedObjectBlock(change: ObjectChange, measure: Measure, cap: number): string {
  if (change.action !== 'failed') return '';
  const message = truncateLines(change.error ?? 'failed (no message)', cap, measure);
  return `${codeBlock(message.text, 'text')}${message.cut ? `✂️ _Error cut: ${message.keptLines} of ${message.totalLines} lines shown._\n` : ''}\n`;
}
