// A cluster's error: the step that failed, the instance and object concerned, and the
// message in a fenced block (capped).

import type { ClusterError } from '../changeset.js';
import { code, codeBlock } from './markdown.js';
import type { Measure } from '../github/limits.js';
import { truncateLines } from './text-truncation.js';

export interface ErrorBlockOptions {
  /** The most of the message shown, measured with `measure`. */
  cap: number;
  measure: Measure;
  /** Markdown note for a message that was cut. */
  cutNote: (keptLines: number, totalLines: number) => string;
}

export function renderErrorBlock(error: ClusterError, options: ErrorBlockOptions): string {
  const where = [error.instance ? `instance ${code(error.instance)}` : '', error.object ? `object ${code(error.object)}` : '']
    .filter(Boolean)
    .join(', ');
  const message = truncateLines(error.message, options.cap, options.measure);
  const cut = message.cut ? `${options.cutNote(message.keptLines, message.totalLines)}\n` : '';
  return `❌ **Failed at ${code(error.step)}**${where ? ` (${where})` : ''}:\n\n${codeBlock(message.text, 'text')}${cut}\n`;
}
