// Markdown for GitHub: escaping for text that comes from clusters, modules and users
// (object names, error messages, diffs), inline code, fenced blocks and tables.

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
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replace(INLINE_SPECIALS, (character) => `&#${character.charCodeAt(0)};`);
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
