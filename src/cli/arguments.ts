// A small command-line parser for timoni-fleet's flags, named and shaped as `timoni bundle`
// names them: repeatable list flags (`-f a.cue -f b.cue` or `-f a.cue,b.cue`), strings,
// and booleans that also take `=false`. Nothing is ignored: a word that is no flag's value
// is an error (no command takes positional arguments), `--wait false` is refused with the
// spelling that works (`--wait=false`), and an unknown flag names the nearest known one.
import { quote } from '../display-text.js';

export type FlagKind = 'list' | 'string' | 'boolean';

export interface FlagSpec {
  name: string;
  short?: string;
  kind: FlagKind;
  description: string;
  default?: string;
  /** Allowed values for a string flag. */
  choices?: string[];
}

/** What a parse needs beyond the flags: the command's name, for messages. */
export interface ParseContext {
  command: string;
  /** Flags the command does not take but another command does, with the commands that take each. */
  otherCommandsFlags?: ReadonlyMap<string, readonly string[]>;
}

export interface ParsedArguments {
  lists: Map<string, string[]>;
  strings: Map<string, string>;
  booleans: Map<string, boolean>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

function parseBoolean(flag: string, text: string): boolean {
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new UsageError(`--${flag} takes true or false, not ${quote(text)}`);
}

export function parseArguments(
  argv: string[],
  specs: FlagSpec[],
  context: ParseContext = { command: '' },
): ParsedArguments {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const byShort = new Map(specs.filter((s) => s.short).map((spec) => [spec.short as string, spec]));
  const parsed: ParsedArguments = { lists: new Map(), strings: new Map(), booleans: new Map() };
  for (const spec of specs) {
    if (spec.kind === 'boolean') parsed.booleans.set(spec.name, spec.default === 'true');
    else if (spec.kind === 'string' && spec.default !== undefined) parsed.strings.set(spec.name, spec.default);
  }

  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === '--') {
      const rest = argv.slice(index + 1);
      if (rest.length > 0) throw unexpectedArgument(rest[0] as string, context);
      break;
    }
    let spec: FlagSpec | undefined;
    let inlineValue: string | undefined;
    if (argument.startsWith('--')) {
      const [name = '', value] = splitOnce(argument.slice(2));
      spec = byName.get(name);
      inlineValue = value;
      if (!spec) throw unknownFlag(`--${name}`, specs, context);
    } else if (argument.startsWith('-') && argument.length > 1) {
      const [name = '', value] = splitOnce(argument.slice(1));
      spec = byShort.get(name);
      inlineValue = value;
      if (!spec) throw unknownFlag(`-${name}`, specs, context);
    } else {
      throw unexpectedArgument(argument, context);
    }

    if (spec.kind === 'boolean') {
      const next = argv[index + 1];
      if (inlineValue === undefined && next !== undefined && BOOLEAN_WORDS.has(next)) {
        throw new UsageError(
          `--${spec.name} takes its value after "=": write --${spec.name}=${next} (a separate ${quote(next)} is not read as its value)`,
        );
      }
      parsed.booleans.set(spec.name, inlineValue === undefined ? true : parseBoolean(spec.name, inlineValue));
      continue;
    }
    let value = inlineValue;
    if (value === undefined) {
      const next = argv[index + 1];
      if (next === undefined) throw new UsageError(`--${spec.name} needs a value`);
      value = next;
      index += 1;
    }
    if (spec.kind === 'list') {
      const list = parsed.lists.get(spec.name) ?? [];
      list.push(
        ...value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item !== ''),
      );
      parsed.lists.set(spec.name, list);
    } else {
      if (spec.choices && !spec.choices.includes(value)) {
        throw new UsageError(`--${spec.name} must be one of ${spec.choices.join(', ')}, not ${quote(value)}`);
      }
      parsed.strings.set(spec.name, value);
    }
  }
  return parsed;
}

/** Words that, after a boolean flag, were meant as its value. */
const BOOLEAN_WORDS = new Set(['true', 'false', 'True', 'False', 'TRUE', 'FALSE']);

const helpHint = (context: ParseContext) =>
  `Run \`timoni-fleet${context.command ? ` ${context.command}` : ''} --help\` for the flags.`;

function unexpectedArgument(argument: string, context: ParseContext): UsageError {
  return new UsageError(
    `unexpected argument ${quote(argument)}: ${context.command || 'this command'} takes flags only (bundle files come with -f, runtime files with -r). ${helpHint(context)}`,
  );
}

/** An unknown flag: the nearest known one when one is near, the commands that take it when another does. */
function unknownFlag(written: string, specs: FlagSpec[], context: ParseContext): UsageError {
  const name = written.replace(/^-+/, '');
  const elsewhere = context.otherCommandsFlags?.get(name);
  if (elsewhere && elsewhere.length > 0) {
    return new UsageError(
      `unknown flag ${written}: ${context.command} does not take it (${elsewhere.join(', ')} ${elsewhere.length === 1 ? 'does' : 'do'}). ${helpHint(context)}`,
    );
  }
  const nearest = nearestFlag(name, specs);
  return new UsageError(
    `unknown flag ${written}${nearest ? `: did you mean --${nearest}?` : '.'} ${helpHint(context)}`,
  );
}

/** The flag whose name is nearest to `name`, if near enough to be a typo of it. */
export function nearestFlag(name: string, specs: FlagSpec[]): string | undefined {
  return nearestName(
    name,
    specs.map((spec) => spec.name),
  );
}

/** The name of `names` nearest to `name`: the only one it starts, else one a typo away (edit distance up to a third of its letters, at least one). */
export function nearestName(name: string, names: readonly string[]): string | undefined {
  const prefixed = names.filter((candidate) => name.length >= 3 && candidate.startsWith(name));
  if (prefixed.length === 1) return prefixed[0];
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance, with a swap of two neighbouring letters counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const row = rows[i] as number[];
      const above = rows[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((rows[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

function splitOnce(text: string): [string, string | undefined] {
  const at = text.indexOf('=');
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

export function formatFlagHelp(specs: FlagSpec[]): string {
  const rows = specs.map((spec) => {
    const value = spec.kind === 'boolean' ? '' : ` ${spec.choices ? spec.choices.join('|') : 'value'}`;
    const names = `${spec.short ? `-${spec.short}, ` : '    '}--${spec.name}${value}`;
    const extra = spec.default !== undefined && spec.default !== '' ? ` (default ${spec.default})` : '';
    return { names, text: `${spec.description}${extra}` };
  });
  const width = Math.max(30, ...rows.map((row) => row.names.length + 1));
  return rows.map((row) => `  ${row.names.padEnd(width)} ${row.text}`).join('\n');
}
