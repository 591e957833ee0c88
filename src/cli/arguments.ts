// A small command-line parser for timoni-fleet's flags, named and shaped as `timoni bundle`
// names them: repeatable list flags (`-f a.cue -f b.cue` or `-f a.cue,b.cue`), strings,
// and booleans that also take `=false`.
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

export interface ParsedArguments {
  lists: Map<string, string[]>;
  strings: Map<string, string>;
  booleans: Map<string, boolean>;
  positionals: string[];
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

export function parseArguments(argv: string[], specs: FlagSpec[]): ParsedArguments {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const byShort = new Map(specs.filter((s) => s.short).map((spec) => [spec.short as string, spec]));
  const parsed: ParsedArguments = { lists: new Map(), strings: new Map(), booleans: new Map(), positionals: [] };
  for (const spec of specs) {
    if (spec.kind === 'boolean') parsed.booleans.set(spec.name, spec.default === 'true');
    else if (spec.kind === 'string' && spec.default !== undefined) parsed.strings.set(spec.name, spec.default);
  }

  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === '--') {
      parsed.positionals.push(...argv.slice(index + 1));
      break;
    }
    let spec: FlagSpec | undefined;
    let inlineValue: string | undefined;
    if (argument.startsWith('--')) {
      const [name = '', value] = splitOnce(argument.slice(2));
      spec = byName.get(name);
      inlineValue = value;
      if (!spec) throw new UsageError(`unknown flag --${name}`);
    } else if (argument.startsWith('-') && argument.length > 1) {
      const [name = '', value] = splitOnce(argument.slice(1));
      spec = byShort.get(name);
      inlineValue = value;
      if (!spec) throw new UsageError(`unknown flag -${name}`);
    } else {
      parsed.positionals.push(argument);
      continue;
    }

    if (spec.kind === 'boolean') {
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
      list.push(...value.split(',').map((item) => item.trim()).filter((item) => item !== ''));
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

function splitOnce(text: string): [string, string | undefined] {
  const at = text.indexOf('=');
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

export function formatFlagHelp(specs: FlagSpec[]): string {
  return specs
    .map((spec) => {
      const names = `${spec.short ? `-${spec.short}, ` : '    '}--${spec.name}${spec.kind === 'boolean' ? '' : ' value'}`;
      const extra = spec.default !== undefined && spec.default !== '' ? ` (default ${spec.default})` : '';
      return `  ${names.padEnd(30)} ${spec.description}${extra}`;
    })
    .join('\n');
}
