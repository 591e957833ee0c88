// Markdown for GitHub: escaping for text that comes from clusters, modules and users
// (object names, error messages, diffs), inline code, fenced blocks and tables; and the
// report's context (run, commit, secrets) with the links made from it.

const HTML_ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  // GitHub links mentions (@org/team, @everyone) and issue references (#12) in HTML blocks too.
  '@': '&#64;',
  '#': '&#35;',
};

/** Escapes text for HTML contexts such as `<summary>` and `<code>`: no tags, no mentions, no references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"@#]/g, (character) => HTML_ENTITIES[character] ?? character);
}

// Characters that start Markdown or GFM syntax inline, or end a table cell, or mention a
// user or team; written as numeric entities so that they render as themselves.
const INLINE_SPECIALS = /[&<>"|`*_[\]~\\!@#:]/g;

/**
 * Escapes text for inline Markdown: paragraphs and table cells. The result renders as the
 * literal text on one line (line breaks become spaces), never as a link, emphasis, HTML,
 * a mention or a cell boundary.
 */
export function escapeInline(text: string): string {
  return text.replace(/\r?\n|\r/g, ' ').replace(INLINE_SPECIALS, (character) => `&#${character.charCodeAt(0)};`);
}

/** Inline code that is safe in HTML and Markdown contexts alike, including table cells. */
export function code(text: string): string {
  return `<code>${escapeInline(text)}</code>`;
}

/** The longest run of backticks in the text. */
function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}

/** A backtick fence longer than any backtick run in the text, and at least three long. */
export function fenceFor(text: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(text) + 1));
}

/** A fenced code block holding the text verbatim. */
export function codeBlock(text: string, language = ''): string {
  const fence = fenceFor(text);
  const body = text.endsWith('\n') ? text : `${text}\n`;
  return `${fence}${language}\n${body}${fence}\n`;
}

/** One table row; cells must already be escaped. */
export function tableRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |\n`;
}

/** A table header with its delimiter row; `align` holds `l` or `r` per column. */
export function tableHeader(headings: readonly string[], align: readonly ('l' | 'r')[]): string {
  const delimiters = headings.map((_, index) => (align[index] === 'r' ? '---:' : '---'));
  return tableRow(headings) + tableRow(delimiters);
}

/** The text with its first character in upper case, for a sentence that starts with a variable phrase. */
export function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ---------------------------------------------------------------------------------------
// The report's context: what the reports need besides the ChangeSet (where the run and the
// commit are, which values are secret), and the links made from it.

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
  return url.replace(
    /[\s()<>]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}
