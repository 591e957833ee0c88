// Workflow commands (`::name key=value,key=value::message`) as the Actions runner
// parses them from each line an action prints, on stdout and on stderr alike.
// Parsing follows the runner's ActionCommand.TryParseV2: leading whitespace is
// ignored, the name must be a registered command, properties are split on `,` and
// then on the first `=`, and escapes are undone by sequential replacement
// (data: %0D %0A %25; properties: %0D %0A %3A %2C %25), in the runner's order.

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

export const unescapeData = (text: string): string => unescape(text, DATA_ESCAPES);
export const unescapeProperty = (text: string): string => unescape(text, PROPERTY_ESCAPES);

/**
 * Parses one printed line. `names` is the set of command names to recognise (the
 * registered ones, plus the resume token while commands are stopped).
 */
export function parseWorkflowCommand(
  line: string,
  stream: 'stdout' | 'stderr',
  names: ReadonlySet<string> = REGISTERED_COMMANDS,
): WorkflowCommand | undefined {
  const message = line.trimStart();
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = message.slice(2, end);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  if (!names.has(command)) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const property of info.slice(space + 1).trim().split(',')) {
      if (property === '') continue;
      const eq = property.indexOf('=');
      if (eq <= 0 || eq === property.length - 1) continue;
      properties[property.slice(0, eq)] = unescapeProperty(property.slice(eq + 1));
    }
  }
  return { command, properties, message: unescapeData(message.slice(end + 2)), stream, raw: line };
}
