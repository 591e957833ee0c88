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

export function formatMask(secret: string): string {
  return `::add-mask::${escapeData(secret)}\n`;
}
