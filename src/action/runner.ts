// The Actions runner's protocol, as an action sees it: inputs (`INPUT_<NAME>` variables),
// file commands (step outputs in GITHUB_OUTPUT, the job summary in GITHUB_STEP_SUMMARY)
// and workflow commands on stdout (annotations, masks, groups), with the runner's escaping
// rules. Written here rather than taken from @actions/core (see README.md).
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { escapeControls, quote } from '../display-text.js';

// Inputs.
export class InputError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(`input ${quote(input)}: ${message}`);
    this.name = 'InputError';
  }
}

export type Environment = Record<string, string | undefined>;

/** The variable of an input: its name upper-cased, spaces turned to underscores (dashes kept). */
export function inputVariableName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

export function getInput(env: Environment, name: string, options: { required?: boolean } = {}): string {
  const value = (env[inputVariableName(name)] ?? '').trim();
  if (options.required && value === '') throw new InputError(name, 'is required and was not given');
  return value;
}

/** YAML 1.2 core booleans, as the Actions toolkit accepts them. */
export function getBooleanInput(env: Environment, name: string, fallback: boolean): boolean {
  const value = getInput(env, name);
  if (value === '') return fallback;
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new InputError(name, `must be true or false, not ${quote(value)}`);
}

/** A list given one item per line or separated by commas; empty items dropped. */
export function getListInput(env: Environment, name: string): string[] {
  return getInput(env, name)
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function getChoiceInput<T extends string>(env: Environment, name: string, choices: readonly T[], fallback: T): T {
  const value = getInput(env, name);
  if (value === '') return fallback;
  if (!(choices as readonly string[]).includes(value)) throw new InputError(name, `must be one of ${choices.join(', ')}, not ${quote(value)}`);
  return value as T;
}

// File commands. Outputs use the heredoc form with a random delimiter, so any value,
// multi-line JSON included, arrives intact.
export class FileCommandError extends Error {}

export function setOutput(env: Environment, name: string, value: string): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) throw new FileCommandError(`cannot set output "${name}": GITHUB_OUTPUT is not set (not running in GitHub Actions?)`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter)) throw new FileCommandError(`output "${name}" contains its delimiter`);
  appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`, 'utf8');
}

export function appendStepSummary(env: Environment, markdown: string): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`, 'utf8');
  return true;
}

// Workflow commands written to stdout (`::error file=x,line=1::message`).
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

/**
 * An annotation command. The message is shown in the log line by line (`##[error]...`), so
 * its lines are escaped as log text; title and file have their control characters escaped.
 */
export function formatAnnotation(annotation: Annotation): string {
  const properties: string[] = [];
  if (annotation.file) properties.push(`file=${escapeProperty(escapeControls(annotation.file))}`);
  if (annotation.line !== undefined) properties.push(`line=${annotation.line}`);
  if (annotation.column !== undefined) properties.push(`col=${annotation.column}`);
  if (annotation.title) properties.push(`title=${escapeProperty(escapeControls(annotation.title))}`);
  const head = properties.length > 0 ? `${annotation.level} ${properties.join(',')}` : annotation.level;
  return `::${head}::${escapeData(escapeLogText(annotation.message))}\n`;
}

/** A group's opening line; the title has its control characters escaped. */
export function formatGroupStart(title: string): string {
  return `::group::${escapeData(escapeControls(title))}\n`;
}

// How the runner finds workflow commands in what an action prints (actions/runner, read at
// commit 258d6c857, net8.0):
//   - Lines: src/Runner.Sdk/ProcessInvoker.cs reads stdout and stderr with .NET's
//     StreamReader.ReadLine, which ends a line at LF, CRLF or a lone CR, and at nothing else
//     (U+0085, U+2028 and U+2029 do not end a line; String.ReplaceLineEndings would, but the
//     runner does not use it).
//   - src/Runner.Worker/Handlers/OutputManager.cs OnDataReceived hands a line that contains
//     `##[` or `::` to ActionCommandManager.TryProcessCommand
//     (src/Runner.Worker/ActionCommandManager.cs), which tries ActionCommand.TryParseV2 and
//     then ActionCommand.TryParse (src/Runner.Common/ActionCommand.cs):
//   - TryParseV2 (`::name props::data`): `message.TrimStart()`, then the line must start
//     with `::`, a second `::` must follow, and the text from index 2 up to the first space
//     must be a registered command name (compared OrdinalIgnoreCase). TrimStart removes
//     what Char.IsWhiteSpace calls whitespace (dotnet/runtime, System.Private.CoreLib
//     src/System/Char.cs: IsWhiteSpaceLatin1, then the Unicode White_Space property):
//     U+0009-U+000D, U+0020, U+0085 (NEL), U+00A0,
//     and the Unicode categories Zs, Zl (U+2028), Zp (U+2029); not U+001C-U+001F (JavaScript's
//     `\s` does not have them either) and not U+FEFF (which `\s` has). JavaScript's `\s`
//     lacks U+0085: a line "\u0085::stop-commands::x" is a command for the runner.
//   - TryParse (the older `##[name props]data`): `message.IndexOf("##[")` anywhere in the
//     line, then `]`, the name read from just after `##[`.
//   StartsWith and IndexOf are culture-sensitive there (ICU), so characters that collation
//   ignores (U+200B, U+00AD...) are skipped when the runner matches `::` and `##[`; but the
//   name is then read at a fixed offset (2 after the trimmed start, 3 after the `##[`
//   found), so a match that spans an ignorable character reads a name that starts with `:`,
//   `#`, `[` or that character, which no command has. What starts a command is therefore an
//   exact `::` at the start of the trimmed line, or an exact `##[` anywhere.
//
// escapeLogText breaks both with a zero-width space (readable, and plain text for the
// runner): after the first `:` of a line whose first character that is not whitespace (by
// the runner's rule or JavaScript's), a control or a format character is `:`, and between
// the `#`s of every `##[`. Control characters and separators are shown escaped first
// (../display-text.ts), so no lone CR can start a line the runner splits off and no NEL
// can precede a command.
const COMMAND_START = /^([\s\u0085\p{Zs}\p{Zl}\p{Zp}\p{Cc}\p{Cf}]*):/u;

/**
 * Plain text made safe to print as log lines: a cluster or object name that the pull
 * request's author chose could otherwise print `::stop-commands::`, after which every
 * later `::add-mask::` is shown verbatim, forge `::error` annotations, or colour and
 * overwrite the log with ANSI sequences. Control characters are shown escaped (a lone CR,
 * where the runner would split, among them), and each line is checked by the runner's own
 * rule above.
 */
export function escapeLogText(text: string): string {
  return escapeControls(text)
    .split('\n')
    .map((line) => line.replace(COMMAND_START, '$1:\u200b').replace(/##\[/g, '#\u200b#['))
    .join('\n');
}

export function formatMask(secret: string): string {
  return `::add-mask::${escapeData(secret)}\n`;
}
