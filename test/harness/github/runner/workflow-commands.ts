// Workflow commands as the Actions runner parses them from each line an action prints, on
// stdout and on stderr alike (actions/runner: src/Runner.Worker/Handlers/OutputManager.cs
// hands a line holding `::` or `##[` to ActionCommandManager.TryProcessCommand, which tries
// src/Runner.Common/ActionCommand.cs TryParseV2, then TryParse):
//   - `::name key=value,key=value::message` (TryParseV2): the line is trimmed with .NET's
//     String.TrimStart (Char.IsWhiteSpace: wider than JavaScript's trimStart by U+0085, and
//     without U+FEFF), must then start with `::`, the name runs up to the first space before
//     the second `::`, properties are split on `,` and then on the first `=`, and escapes are
//     undone by sequential replacement (data: %0D %0A %25; properties: %0D %0A %3A %2C %25),
//     in the runner's order;
//   - `##[name key=value;key=value]message` (TryParse, the older form): `##[` anywhere in
//     the line, the name up to the first space before the next `]`, properties split on `;`,
//     escapes %3B %0D %0A %5D %25 undone.
// Names are compared ignoring case (the runner's HashSet uses OrdinalIgnoreCase); the name
// is reported in lower case. The runner matches `::` and `##[` culture-sensitively, where
// collation-ignorable characters (U+200B...) are skipped; since it then reads the name at a
// fixed offset, such a match yields a name starting with `:`, `#`, `[` or that character,
// which no command has, so matching them exactly here finds the same commands.

/** What .NET's Char.IsWhiteSpace calls whitespace: String.TrimStart removes these. */
const DOTNET_WHITESPACE: ReadonlySet<number> = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006,
  0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);

/** .NET's String.TrimStart(). */
export function dotnetTrimStart(text: string): string {
  let start = 0;
  while (start < text.length && DOTNET_WHITESPACE.has(text.charCodeAt(start))) start++;
  return text.slice(start);
}

export interface WorkflowCommand {
  /** Command name: error, warning, notice, debug, group, endgroup, add-mask, ... */
  command: string;
  /** Properties, unescaped (file, line, col, endLine, endColumn, title, name, ...). */
  properties: Record<string, string>;
  /** The message (data) after the second `::`, unescaped. */
  message: string;
  stream: 'stdout' | 'stderr';
  /** The line as printed. */
  raw: string;
}

/** The commands the runner recognises; other `::x::` lines are printed as they are. */
export const REGISTERED_COMMANDS: ReadonlySet<string> = new Set([
  'add-mask',
  'add-path',
  'set-env',
  'set-output',
  'save-state',
  'error',
  'warning',
  'notice',
  'debug',
  'group',
  'endgroup',
  'echo',
  'add-matcher',
  'remove-matcher',
  'stop-commands',
]);

const DATA_ESCAPES: ReadonlyArray<readonly [string, string]> = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%25', '%'],
];

const PROPERTY_ESCAPES: ReadonlyArray<readonly [string, string]> = [
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%3A', ':'],
  ['%2C', ','],
  ['%25', '%'],
];

function unescape(text: string, mappings: ReadonlyArray<readonly [string, string]>): string {
  let out = text;
  for (const [escaped, token] of mappings) out = out.split(escaped).join(token);
  return out;
}

const LEGACY_ESCAPES: ReadonlyArray<readonly [string, string]> = [
  ['%3B', ';'],
  ['%0D', '\r'],
  ['%0A', '\n'],
  ['%5D', ']'],
  ['%25', '%'],
];

export const unescapeData = (text: string): string => unescape(text, DATA_ESCAPES);
export const unescapeProperty = (text: string): string => unescape(text, PROPERTY_ESCAPES);

function isName(names: ReadonlySet<string>, command: string): boolean {
  const lower = command.toLowerCase();
  for (const name of names) if (name.toLowerCase() === lower) return true;
  return false;
}

/** Properties `key=value` split on `separator`; a pair without a key or a value is dropped. */
function parseProperties(
  text: string,
  separator: string,
  unescapeValue: (value: string) => string,
): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const property of text.split(separator)) {
    if (property === '') continue;
    const eq = property.indexOf('=');
    if (eq <= 0 || eq === property.length - 1) continue;
    properties[property.slice(0, eq)] = unescapeValue(property.slice(eq + 1));
  }
  return properties;
}

function parseV2(line: string, stream: 'stdout' | 'stderr', names: ReadonlySet<string>): WorkflowCommand | undefined {
  const message = dotnetTrimStart(line);
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  if (!isName(names, command)) return undefined;
  const properties = space > 0 ? parseProperties(info.slice(space + 1).trim(), ',', unescapeProperty) : {};
  return {
    command: command.toLowerCase(),
    properties,
    message: unescapeData(message.slice(end + 2)),
    stream,
    raw: line,
  };
}

function parseLegacy(
  line: string,
  stream: 'stdout' | 'stderr',
  names: ReadonlySet<string>,
): WorkflowCommand | undefined {
  const prefix = line.indexOf('##[');
  if (prefix < 0) return undefined;
  const bracket = line.indexOf(']', prefix);
  if (bracket < 0) return undefined;
  const info = line.slice(prefix + 3, bracket);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  if (!isName(names, command)) return undefined;
  const properties =
    space > 0 ? parseProperties(info.slice(space + 1), ';', (value) => unescape(value, LEGACY_ESCAPES)) : {};
  return {
    command: command.toLowerCase(),
    properties,
    message: unescape(line.slice(bracket + 1), LEGACY_ESCAPES),
    stream,
    raw: line,
  };
}

/**
 * Parses one printed line, in the runner's order: the `::` form, then the `##[` form.
 * `names` is the set of command names to recognise (the registered ones, plus the resume
 * token while commands are stopped).
 */
export function parseWorkflowCommand(
  line: string,
  stream: 'stdout' | 'stderr',
  names: ReadonlySet<string> = REGISTERED_COMMANDS,
): WorkflowCommand | undefined {
  return parseV2(line, stream, names) ?? parseLegacy(line, stream, names);
}
