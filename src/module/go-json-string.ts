// Raw bytes as Go's encoding/json writes them as a string: valid UTF-8 is kept, and every
// byte that does not start a valid UTF-8 sequence becomes U+FFFD on its own (json.Marshal
// "coerces to valid UTF-8, replacing invalid bytes with the Unicode replacement rune",
// one per utf8.DecodeRune error of width 1). TextDecoder differs: it replaces a truncated
// sequence (e.g. E2 82 followed by 'A') with one U+FFFD where Go writes two.

const REPLACEMENT = 0xfffd;

/** Bounds of the second byte after a given lead byte, as in Go's utf8 "accept ranges". */
function secondByteRange(lead: number): [number, number] {
  if (lead === 0xe0) return [0xa0, 0xbf];
  if (lead === 0xed) return [0x80, 0x9f];
  if (lead === 0xf0) return [0x90, 0xbf];
  if (lead === 0xf4) return [0x80, 0x8f];
  return [0x80, 0xbf];
}

/** Length of the sequence a lead byte starts (0: not a valid lead byte). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/** The code point at `bytes[at]` and its length, or undefined when Go would see RuneError of width 1. */
function decodeRune(bytes: Uint8Array, at: number): { codePoint: number; size: number } | undefined {
  const lead = bytes[at] as number;
  const size = sequenceLength(lead);
  if (size === 0 || at + size > bytes.length) return undefined;
  if (size === 1) return { codePoint: lead, size };
  const [low, high] = secondByteRange(lead);
  const second = bytes[at + 1] as number;
  if (second < low || second > high) return undefined;
  let codePoint = lead & (0xff >> (size + 1));
  for (let i = 1; i < size; i += 1) {
    const next = bytes[at + i] as number;
    if (i > 1 && (next < 0x80 || next > 0xbf)) return undefined;
    codePoint = (codePoint << 6) | (next & 0x3f);
  }
  return { codePoint, size };
}

export function goJsonString(bytes: Uint8Array): string {
  const codePoints: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    const rune = decodeRune(bytes, at);
    codePoints.push(rune ? rune.codePoint : REPLACEMENT);
    at += rune ? rune.size : 1;
  }
  let text = '';
  for (let i = 0; i < codePoints.length; i += 8192) text += String.fromCodePoint(...codePoints.slice(i, i + 8192));
  return text;
}
