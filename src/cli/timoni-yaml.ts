// Objects printed as YAML exactly as `timoni build` / `timoni bundle build` print them:
// sigs.k8s.io/yaml's Marshal, which writes the object as JSON, reads that JSON back with
// go-yaml v2 and emits it with go-yaml v2's emitter (a port of libyaml). What that means,
// read from go.yaml.in/yaml/v2 v2.4.4 (resolve.go, encode.go, emitterc.go, sorter.go):
//
// - strings that a YAML 1.1 reader would take for something else (yes, no, on, off, y,
//   n, ~, null, numbers with underscores, base 60 numbers such as 12:30, dates such as
//   2001-12-14) are double-quoted; strings with a line break are literal blocks (`|`),
//   unless they hold characters a block cannot (then double-quoted with escapes);
//   strings that cannot be plain (indicators, leading or trailing spaces) single-quoted;
// - plain and quoted scalars are folded at a space once the line passes 80 columns;
// - sequences inside a mapping are not indented (`key:\n- item`);
// - keys in "natural" order (digit runs compared as numbers, letters after other
//   characters); keys longer than 128 bytes or with line breaks become `? key\n: value`;
// - empty maps and lists as `{}` and `[]`; floats as Go's strconv 'g' (1e+21, 1e-06).
//
// Each string's analysis (its style, whether it may be plain or quoted) is computed once
// and remembered; only the folding depends on the column where the string starts.
import { resolvesToNonString } from './yaml-resolve.js';

const BEST_WIDTH = 80;
const BEST_INDENT = 2;
/** A key longer than this (in UTF-8 bytes) is written as a complex key (`? key`). */
const SIMPLE_KEY_LIMIT = 128;

export class TimoniYamlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimoniYamlError';
  }
}

type Style = 'plain' | 'single' | 'double' | 'literal';

interface ScalarAnalysis {
  chars: number[];
  byteLength: number;
  multiline: boolean;
  blockPlainAllowed: boolean;
  singleQuotedAllowed: boolean;
  blockAllowed: boolean;
  /** What go-yaml's encoder asks for before the emitter's checks (encode.go stringv). */
  requested: Style;
}

const isBreak = (c: number | undefined): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isSpace = (c: number | undefined): boolean => c === 0x20;
const isBlank = (c: number | undefined): boolean => c === 0x20 || c === 0x09;
const isBlankOrEnd = (c: number | undefined): boolean => c === undefined || c === 0 || isBlank(c) || isBreak(c);

/** libyaml's is_printable: what may appear unescaped (4-byte characters may not). */
function isPrintable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
}

function utf8Length(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
}

/** Code points; a lone surrogate becomes U+FFFD, as Go's JSON encoder writes it. */
function codePoints(text: string): number[] {
  const chars: number[] = [];
  for (const char of text) {
    const c = char.codePointAt(0) as number;
    chars.push(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c);
  }
  return chars;
}

/** libyaml's yaml_emitter_analyze_scalar, plus the style go-yaml's encoder requests. */
function analyze(text: string): ScalarAnalysis {
  const chars = codePoints(text);
  const byteLength = chars.reduce((sum, c) => sum + utf8Length(c), 0);
  const requested: Style = text.includes('\n') ? 'literal' : resolvesToNonString(text) ? 'double' : 'plain';
  if (chars.length === 0) {
    return { chars, byteLength, multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false, requested };
  }
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  if (/^(---|\.\.\.)/.test(text)) blockIndicators = true;
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i] as number;
    const followedByWhitespace = i + 1 >= chars.length || isBlank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(String.fromCodePoint(c))) blockIndicators = true;
      else if ((c === 0x3f || c === 0x3a || c === 0x2d) && followedByWhitespace) blockIndicators = true; // ? : -
    } else if (c === 0x3a && followedByWhitespace) blockIndicators = true;
    else if (c === 0x23 && precededByWhitespace) blockIndicators = true; // #
    if (!isPrintable(c)) special = true;
    if (isSpace(c)) {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlankOrEnd(c);
  }
  let blockPlainAllowed = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak);
  let singleQuotedAllowed = true;
  let blockAllowed = !trailingSpace;
  if (breakSpace) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
  }
  if (spaceBreak || special) {
    blockPlainAllowed = false;
    singleQuotedAllowed = false;
    blockAllowed = false;
  }
  if (lineBreaks || blockIndicators) blockPlainAllowed = false;
  return { chars, byteLength, multiline: lineBreaks, blockPlainAllowed, singleQuotedAllowed, blockAllowed, requested };
}

/**
 * What a string value becomes when go-yaml reads the JSON text that holds it: raw control
 * characters outside YAML's printable set stop the reader; a raw NEL (U+0085, which JSON
 * does not escape) is a line break inside a double-quoted scalar and folds into a space
 * (several into line feeds), with the spaces around it dropped.
 */
function throughJsonReader(text: string, isKey: boolean): string {
  if (/[\u007f-\u0084\u0086-\u009f\ufffe\uffff]/.test(text)) throw new TimoniYamlError(`yaml: control characters are not allowed (in ${JSON.stringify(text)})`);
  if (!text.includes('\u0085')) return text;
  if (isKey) throw new TimoniYamlError(`yaml: a key with a NEL line break (U+0085) cannot be printed: ${JSON.stringify(text)}`);
  return text.replace(/ *\u0085(?: *\u0085)* */g, (run) => {
    const breaks = run.split('\u0085').length - 1;
    return breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
  });
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64). */
function goFloat(value: number): string {
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const exponent = Number(exponentText);
  const sign = negative ? '-' : '';
  if (exponent < -4 || exponent >= 6) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    const abs = Math.abs(exponent);
    return `${sign}${digits[0]}${fraction}e${exponent < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A JSON number as go-yaml prints it after reading it back: whole numbers within 64 bits exactly, others as floats. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) throw new TimoniYamlError(`yaml: ${value} is not a JSON number`);
  if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 64) return BigInt(value).toString();
  return goFloat(value);
}

const isLetter = (c: number): boolean => /\p{L}/u.test(String.fromCodePoint(c));
const isDigit = (c: number): boolean => /\p{Nd}/u.test(String.fromCodePoint(c));

/** go-yaml v2's keyList.Less for two string keys. */
export function naturalLess(a: string, b: string): boolean {
  const ar = codePoints(a);
  const br = codePoints(b);
  for (let i = 0; i < ar.length && i < br.length; i += 1) {
    const ac = ar[i] as number;
    const bc = br[i] as number;
    if (ac === bc) continue;
    const al = isLetter(ac);
    const bl = isLetter(bc);
    if (al && bl) return ac < bc;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ac === 0x30 || bc === 0x30) {
      for (let j = i - 1; j >= 0 && isDigit(ar[j] as number); j -= 1) {
        if (ar[j] !== 0x30) {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    for (; ai < ar.length && isDigit(ar[ai] as number); ai += 1) an = BigInt.asIntN(64, an * 10n + BigInt((ar[ai] as number) - 0x30));
    let bi = i;
    for (; bi < br.length && isDigit(br[bi] as number); bi += 1) bn = BigInt.asIntN(64, bn * 10n + BigInt((br[bi] as number) - 0x30));
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ac < bc;
  }
  return ar.length < br.length;
}

export function sortKeys(keys: string[]): string[] {
  return [...keys].sort((a, b) => (naturalLess(a, b) ? -1 : naturalLess(b, a) ? 1 : 0));
}

interface NodeContext {
  root?: boolean;
  mapping?: boolean;
  simpleKey?: boolean;
}

function hex(value: number, width: number): string {
  return value.toString(16).toUpperCase().padStart(width, '0');
}

const namedEscapes = new Map<number, string>([
  [0x00, '0'], [0x07, 'a'], [0x08, 'b'], [0x09, 't'], [0x0a, 'n'], [0x0b, 'v'], [0x0c, 'f'], [0x0d, 'r'],
  [0x1b, 'e'], [0x22, '"'], [0x5c, '\\'], [0x85, 'N'], [0xa0, '_'], [0x2028, 'L'], [0x2029, 'P'],
]);

/** One go-yaml document: the emitter's column, indentation and whitespace state, as libyaml keeps it. */
class Emitter {
  private out = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private indent = -1;
  private readonly indents: number[] = [];

  constructor(private readonly analyses: Map<string, ScalarAnalysis>) {}

  document(value: unknown): string {
    this.node(value, { root: true });
    this.writeIndent();
    return this.out;
  }

  private analysis(text: string): ScalarAnalysis {
    let found = this.analyses.get(text);
    if (!found) {
      found = analyze(text);
      this.analyses.set(text, found);
    }
    return found;
  }

  private put(text: string): void {
    this.out += text;
    this.column += text.length;
  }

  private writeChar(c: number): void {
    this.out += String.fromCodePoint(c);
    this.column += 1;
  }

  private putBreak(): void {
    this.out += '\n';
    this.column = 0;
  }

  private writeBreak(c: number): void {
    if (c === 0x0a) this.putBreak();
    else {
      this.out += String.fromCodePoint(c);
      this.column = 0;
    }
  }

  private writeIndent(): void {
    const indent = Math.max(this.indent, 0);
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    while (this.column < indent) this.put(' ');
    this.whitespace = true;
    this.indention = true;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(indicator);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  private increaseIndent(flow: boolean, indentless: boolean): void {
    this.indents.push(this.indent);
    if (this.indent < 0) this.indent = flow ? BEST_INDENT : 0;
    else if (!indentless) this.indent += BEST_INDENT;
  }

  private popIndent(): void {
    this.indent = this.indents.pop() ?? -1;
  }

  private node(value: unknown, context: NodeContext): void {
    if (value === null || value === undefined) this.plainScalar('null', context);
    else if (typeof value === 'boolean') this.plainScalar(value ? 'true' : 'false', context);
    else if (typeof value === 'number') this.plainScalar(formatNumber(value), context);
    else if (typeof value === 'bigint') this.plainScalar(value.toString(), context);
    else if (typeof value === 'string') this.stringScalar(throughJsonReader(value, context.simpleKey === true), context);
    else if (Array.isArray(value)) this.sequence(value, context);
    else if (typeof value === 'object') this.mapping(value as Record<string, unknown>, context);
    else throw new TimoniYamlError(`yaml: cannot print a value of type ${typeof value}`);
  }

  private emptyCollection(open: string, close: string): void {
    this.writeIndicator(open, true, true, false);
    this.writeIndicator(close, false, false, false);
  }

  private sequence(items: unknown[], context: NodeContext): void {
    if (items.length === 0) return this.emptyCollection('[', ']');
    this.increaseIndent(false, context.mapping === true && !this.indention);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.node(item, {});
    }
    this.popIndent();
  }

  private mapping(object: Record<string, unknown>, _context: NodeContext): void {
    const keys = sortKeys(Object.keys(object).filter((key) => object[key] !== undefined));
    if (keys.length === 0) return this.emptyCollection('{', '}');
    this.increaseIndent(false, false);
    for (const key of keys) {
      this.writeIndent();
      const analysis = this.analysis(throughJsonReader(key, true));
      if (!analysis.multiline && analysis.byteLength <= SIMPLE_KEY_LIMIT) {
        this.node(key, { mapping: true, simpleKey: true });
        this.writeIndicator(':', false, false, false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.node(key, { mapping: true });
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.node(object[key], { mapping: true });
    }
    this.popIndent();
  }

  /** Numbers, booleans and null: always plain. */
  private plainScalar(text: string, context: NodeContext): void {
    this.increaseIndent(true, false);
    this.writePlain(codePoints(text), !context.simpleKey);
    this.popIndent();
  }

  private stringScalar(text: string, context: NodeContext): void {
    const analysis = this.analysis(text);
    const simpleKey = context.simpleKey === true;
    let style = analysis.requested;
    if (simpleKey && analysis.multiline) style = 'double';
    if (style === 'plain' && (!analysis.blockPlainAllowed || (analysis.chars.length === 0 && simpleKey))) style = 'single';
    if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
    if (style === 'literal' && (!analysis.blockAllowed || simpleKey)) style = 'double';
    this.increaseIndent(true, false);
    const chars = analysis.chars;
    if (style === 'plain') this.writePlain(chars, !simpleKey);
    else if (style === 'single') this.writeSingleQuoted(chars, !simpleKey);
    else if (style === 'double') this.writeDoubleQuoted(chars, !simpleKey);
    else this.writeLiteral(chars);
    this.popIndent();
  }

  private writePlain(chars: number[], allowBreaks: boolean): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    for (let i = 0; i < chars.length; i += 1) {
      const c = chars[i] as number;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpace(chars[i + 1])) this.writeIndent();
        else this.writeChar(c);
        spaces = true;
      } else {
        this.writeChar(c);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingleQuoted(chars: number[], allowBreaks: boolean): void {
    this.writeIndicator("'", true, false, false);
    let spaces = false;
    let breaks = false;
    for (let i = 0; i < chars.length; i += 1) {
      const c = chars[i] as number;
      if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1 && !isSpace(chars[i + 1])) this.writeIndent();
        else this.writeChar(c);
        spaces = true;
      } else if (isBreak(c)) {
        if (!breaks && c === 0x0a) this.putBreak();
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        if (c === 0x27) this.put("'");
        this.writeChar(c);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'", false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeDoubleQuoted(chars: number[], allowBreaks: boolean): void {
    this.writeIndicator('"', true, false, false);
    // libyaml checks for a byte order mark at the start of the value for every character.
    const startsWithBom = chars[0] === 0xfeff;
    let spaces = false;
    for (let i = 0; i < chars.length; i += 1) {
      const c = chars[i] as number;
      if (!isPrintable(c) || startsWithBom || isBreak(c) || c === 0x22 || c === 0x5c) {
        const named = namedEscapes.get(c);
        this.put(`\\${named ?? (c <= 0xff ? `x${hex(c, 2)}` : c <= 0xffff ? `u${hex(c, 4)}` : `U${hex(c, 8)}`)}`);
        spaces = false;
      } else if (isSpace(c)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && i > 0 && i < chars.length - 1) {
          this.writeIndent();
          if (isSpace(chars[i + 1])) this.put('\\');
        } else this.writeChar(c);
        spaces = true;
      } else {
        this.writeChar(c);
        spaces = false;
      }
    }
    this.writeIndicator('"', false, false, false);
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(chars: number[]): void {
    this.writeIndicator('|', true, false, false);
    if (isSpace(chars[0]) || isBreak(chars[0])) this.writeIndicator(String(BEST_INDENT), false, false, false);
    const last = chars.length - 1;
    if (!isBreak(chars[last])) this.writeIndicator('-', false, false, false);
    else if (last === 0 || isBreak(chars[last - 1])) this.writeIndicator('+', false, false, false);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const c of chars) {
      if (isBreak(c)) {
        this.writeBreak(c);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent();
        this.writeChar(c);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/**
 * Prints YAML documents as go-yaml v2 does, remembering each string's analysis across
 * the documents it prints.
 */
export class TimoniYamlPrinter {
  private readonly analyses = new Map<string, ScalarAnalysis>();

  /** One value as sigs.k8s.io/yaml.Marshal prints it (ends with a line break). */
  marshal(value: unknown): string {
    return new Emitter(this.analyses).document(value);
  }

  /** Objects as one multi-document text, `---` between them, as Timoni's build prints an instance. */
  marshalObjects(objects: unknown[]): string {
    return objects.map((object) => this.marshal(object)).join('---\n');
  }
}
