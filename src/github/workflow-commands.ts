// GitHub Actions workflow commands written to stdout (`::error file=x,line=1::message`),
// with the runner's escaping rules for data and properties.

export type AnnotationLevel = 'error' | 'warning' | 'notice';

export interface Annotation {
  level: AnnotationLevel;
  message: string;
  title?: string;
  file?: string;
  line?: number;
  column?: number;
}

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function formatAnnotation(annotation: Annotation): string {
  const properties: string[] = [];
  if (annotation.file) properties.push(`file=${escapeProperty(annotation.file)}`);
  if (annotation.line !== undefined) properties.push(`line=${annotation.line}`);
  if (annotation.column !== undefined) properties.push(`col=${annotation.column}`);
  if (annotation.title) properties.push(`title=${escapeProperty(annotation.title)}`);
  const head = properties.length > 0 ? `${annotation.level} ${properties.join(',')}` : annotation.level;
  return `::${head}::${escapeData(annotation.message)}\n`;
}

/**
 * Plain text made safe to print as log lines: the runner reads every line that starts with
 * `::` (after leading whitespace) as a workflow command, and `##[` anywhere as a command of
 * the older form. A cluster or object name that the pull request's author chose could
 * otherwise print `::stop-commands::`, after which every later `::add-mask::` is shown
 * verbatim, or forge `::error` annotations. A zero-width space between the two characters
 * keeps the text readable and makes it plain text for the runner. Every line break the
 * runner splits on (\r\n, \n, \r) starts a new line that is checked the same way.
 */
export function escapeLogText(text: string): string {
  return text
    .split(/\r\n|\n|\r/)
    .map((line) => line.replace(/^(\s*):/, '$1:\u200b').replace(/##\[/g, '#\u200b#['))
    .join('\n');
}

export function formatMask(secret: string): string {
  return `::add-mask::${escapeData(secret)}\n`;
}
