// Workflow commands as text: what the Actions runner reads as a command in a log line
// (`::error file=x,line=1::message`, `::group::`, `::add-mask::`), written with its escaping
// rules, and log text made safe from being read as one (escapeLogText). On the ground floor
// because both entry points print them: the action's log and annotations (../action/runner.ts
// re-exports these as part of the runner's protocol), and the CLI's stderr and its error
// annotations when it runs in a workflow step (error-annotations.ts).
import { escapeControls } from './display-text.js';

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
