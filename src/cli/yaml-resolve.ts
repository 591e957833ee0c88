// Which strings go-yaml v2 must quote because a YAML 1.1 reader would take them, unquoted,
// for something other than a string (go.yaml.in/yaml/v2 resolve.go `resolve` and
// encode.go `isBase60Float`): booleans (y, yes, on, off, n, no in three casings), null
// (~, null), .inf/.nan, integers in Go's syntax (0x, 0o, 0b, leading-0 octal, underscores
// ignored), decimal floats, timestamps (YYYY-M-D with an optional time, as Go's
// time.Parse reads the four layouts go-yaml tries) and base 60 numbers such as 12:30.

const keywords = new Set([
  'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON',
  'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF',
  '', '~', 'null', 'Null', 'NULL',
  '.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF',
]);

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

const yamlStyleFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const base60Float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** The digits of a Go integer literal (strconv.ParseUint base 0, no sign), as a BigInt; undefined when invalid. */
function goUnsigned(text: string): bigint | undefined {
  let match = /^0[xX]([0-9a-fA-F]+)$/.exec(text);
  if (match && text.length >= 3) return BigInt(`0x${match[1]}`);
  match = /^0[bB]([01]+)$/.exec(text);
  if (match) return BigInt(`0b${match[1]}`);
  match = /^0[oO]([0-7]+)$/.exec(text);
  if (match) return BigInt(`0o${match[1]}`);
  match = /^0([0-7]*)$/.exec(text);
  if (match) return match[1] ? BigInt(`0o${match[1]}`) : 0n;
  if (/^[1-9][0-9]*$/.test(text)) return BigInt(text);
  return undefined;
}

/** strconv.ParseInt(text, 0, 64) or strconv.ParseUint(text, 0, 64) succeeds. */
function isGoInteger(text: string): boolean {
  const sign = text[0] === '+' || text[0] === '-' ? text[0] : '';
  const magnitude = goUnsigned(text.slice(sign.length));
  if (magnitude === undefined) return false;
  if (sign === '') return magnitude <= UINT64_MAX;
  const value = sign === '-' ? -magnitude : magnitude;
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** strconv.ParseInt(digits, 2, 64) or ParseUint(digits, 2, 64) succeeds. */
function isGoBinary(digits: string): boolean {
  const match = /^([+-]?)([01]+)$/.exec(digits);
  if (!match) return false;
  const magnitude = BigInt(`0b${match[2]}`);
  if (match[1] === '') return magnitude <= UINT64_MAX;
  const value = match[1] === '-' ? -magnitude : magnitude;
  return value >= INT64_MIN && value <= INT64_MAX;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Go's time.Parse with one of go-yaml's layouts: "2006-1-2T15:4:5.999999999Z07:00" (also
 * with a lower-case t), "2006-1-2 15:4:5.999999999" and "2006-1-2". Month, day, hour,
 * minute and second take one or two digits and are range-checked (the day against the
 * month); the fraction (after . or ,) is optional; the zone is Z or ±hh:mm (up to 24:60).
 */
function isTimestamp(text: string): boolean {
  if (!/^[0-9]{4}-/.test(text)) return false;
  const match = /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?)?$/.exec(text);
  if (!match) return false;
  const [, year, month, day, separator, hour, minute, second, zone] = match;
  const m = Number(month);
  if (m < 1 || m > 12) return false;
  const d = Number(day);
  if (d < 1 || d > daysIn(m, Number(year))) return false;
  if (separator === undefined) return true;
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return false;
  // The space-separated layout has no zone; the T layouts require one.
  if (separator === ' ') return zone === undefined;
  if (zone === undefined) return false;
  if (zone !== 'Z' && (Number(zone.slice(1, 3)) > 24 || Number(zone.slice(4, 6)) > 60)) return false;
  return true;
}

/** go-yaml's resolve(): does the plain scalar `text` read as anything but a string? */
function resolvesToOther(text: string): boolean {
  if (keywords.has(text)) return true;
  const first = text[0] ?? '';
  if (first === '.') return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) && Number.isFinite(Number(text));
  if (!/^[-+0-9]$/.test(first)) return false;
  if (isTimestamp(text)) return true;
  const plain = text.replaceAll('_', '');
  if (isGoInteger(plain)) return true;
  if (yamlStyleFloat.test(plain) && Number.isFinite(Number(plain))) return true;
  if (plain.startsWith('0b')) return isGoBinary(plain.slice(2));
  if (plain.startsWith('-0b')) return isGoBinary(`-${plain.slice(3)}`);
  return false;
}

/** go-yaml's encoder quotes the string when it would not read back as the same string. */
export function resolvesToNonString(text: string): boolean {
  if (resolvesToOther(text)) return true;
  return /^[-+0-9]/.test(text) && text.includes(':') && base60Float.test(text);
}
