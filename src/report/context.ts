// What the reports need besides the ChangeSet: where the run and the commit are, and which
// values are secret.

import { code } from './markdown.js';

export interface ReportContext {
  /** The commit the ChangeSet describes (full SHA; shown shortened). */
  commitSha: string;
  /** The workflow run, whose job summary holds what a comment had to leave out. */
  runUrl?: string;
  /** `owner/name`, to link the commit. */
  repository?: string;
  /** GitHub's web address; `https://github.com` unless on GitHub Enterprise Server. */
  serverUrl?: string;
  /** The pull request the comment is on, or that was merged. */
  pullRequest?: number;
  /** The PR comment, linked from the job summary. */
  commentUrl?: string;
  /**
   * Plain-text notes for the job summary, shown as a note near the top, e.g. "The token
   * cannot write comments on pull requests from forks; the diff is only in this summary."
   */
  notes?: readonly string[];
  /** The bundle files as given: the comment's marker names them when the bundle's name is unknown. */
  bundleFiles?: readonly string[];
  /** Values that must never appear in a report (see maskSecrets for the rule). */
  secrets: readonly string[];
  /**
   * Size budget: for comments in UTF-16 code units (default COMMENT_LIMIT), for job summaries
   * in UTF-8 bytes (default STEP_SUMMARY_BUDGET). Mostly for tests.
   */
  maxSize?: number;
}

/** The commit as Markdown: its short SHA, linked when the repository is known. */
export function commitLink(context: ReportContext): string {
  const sha = context.commitSha.slice(0, 7);
  if (!context.repository || !/^[0-9a-f]{7,64}$/i.test(context.commitSha)) return code(sha);
  const server = (context.serverUrl ?? 'https://github.com').replace(/\/+$/, '');
  return `[<code>${sha}</code>](${server}/${context.repository}/commit/${context.commitSha})`;
}

/** The run as a Markdown link with the given text, or the bare text when unknown. */
export function runLink(context: ReportContext, text: string): string {
  return context.runUrl ? `[${text}](${linkTarget(context.runUrl)})` : text;
}

/** A URL made safe as a Markdown link target: no spaces, parentheses or angle brackets. */
export function linkTarget(url: string): string {
  return url.replace(/[\s()<>]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
