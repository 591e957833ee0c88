// Text from the user's files, shown to a person: one rule for every log line and terminal
// line (the Actions log, the CLI's output), one for a name or value quoted in a message, and
// the one set of characters that both, and the reports (../report/redaction.ts), show escaped.
//
// A bundle, runtime or module is written by a pull request's author; what it names (an
// object, an instance, a cluster, a label) and what it holds (values, CUE error texts) can
// carry any character. Printed raw, an ESC or CSI (U+009B) starts an ANSI sequence that a
// terminal or the Actions log viewer interprets (colours, cursor moves that overwrite what
// was printed before, hyperlinks), a line break or separator starts a new line that could
// read as a workflow command or as our own output, and a character that does not show makes
// two different names or values read the same. Which characters do not show is decided by
// Unicode property, not by a list (NOT_SHOWN below), so that a character of the same kind
// that a list would have missed is escaped too:
//   - controls, Cc (C0, DEL, C1 with NEL and CSI), except tab and the line break;
//   - format characters, Cf (bidirectional controls, zero-width characters, U+FEFF, the soft
//     hyphen U+00AD, U+180E, the tag characters U+E0000-U+E007F);
//   - default ignorable code points, Default_Ignorable_Code_Point (U+034F, the Hangul fillers
//     U+115F, U+1160, U+3164, U+FFA0, U+17B4, U+17B5, every variation selector and tag);
//   - variation selectors, Variation_Selector (U+180B-U+180F, U+FE00-U+FE0F,
//     U+E0100-U+E01EF), named although they are default ignorable as well;
//   - the line and paragraph separators, Zl and Zp (U+2028, U+2029);
//   - spaces other than U+0020, Zs (no-break and ideographic spaces, U+2000-U+200A): they
//     show as a space, so a value changed only from a space to one of them would read the same;
//   - private use, Co: what it shows is up to a font, not to Unicode;
//   - unassigned code points, Cn (noncharacters among them): the engine's Unicode does not
//     know what they are, so nothing says they show (a character assigned by a later Unicode
//     version is escaped until Node's tables know it);
//   - lone surrogates, Cs: not a character at all (UTF-8 turns them into U+FFFD).
// Other combining marks (Mn) are not escaped: they show, on the character before them, and
// scripts need them. The price: an emoji sequence from the user's files shows its joiner
// (U+200D) and its selector (U+FE0F) escaped, as any other text would. So:
//   - a log line shows every such character escaped, JSON-style (`\u001b[31m`, `\u00ad`),
//     except tab and the line break; a CRLF is a line break, a lone CR is shown escaped (a
//     terminal would return the cursor and print over the line);
//   - a name or value quoted in a message is JSON-quoted, and beyond what JSON escapes (C0,
//     `"` and `\`) every other such character is escaped as well, so that what a reader sees
//     between the quotes is what the name is.
// An ordinary name reads the same as before: `"web"` is `"web"`.

/**
 * One character that does not show as itself (see the header): matched by Unicode property.
 * Tab, line feed and the ordinary space are never matched. Global: use with `replace`, or
 * reset `lastIndex`; `holdsNotShown` tests a text.
 */
export const NOT_SHOWN =
  /(?![\t\n ])[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}\p{Variation_Selector}]/gu;

/** Whether the text holds a character that does not show as itself (NOT_SHOWN). */
export function holdsNotShown(text: string): boolean {
  NOT_SHOWN.lastIndex = 0;
  const found = NOT_SHOWN.test(text);
  NOT_SHOWN.lastIndex = 0;
  return found;
}

/** The characters of the text that do not show as themselves (NOT_SHOWN), once each, in code point order. */
export function notShownIn(text: string): string[] {
  return [...new Set(text.match(NOT_SHOWN) ?? [])].sort((a, b) => (a.codePointAt(0) ?? 0) - (b.codePointAt(0) ?? 0));
}

function unicodeEscape(character: string): string {
  let escaped = '';
  // Code units, as JSON writes them: a character beyond U+FFFF becomes its surrogate pair.
  for (let i = 0; i < character.length; i++) escaped += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}

/** Text as a log or terminal line shows it: every character that does not show escaped (NOT_SHOWN), tabs and line breaks kept (CRLF as LF). */
export function escapeControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(NOT_SHOWN, unicodeEscape);
}

/** A name or value for a message: JSON-quoted, with every character that does not show escaped (NOT_SHOWN). */
export function quote(value: string): string {
  return JSON.stringify(value).replace(NOT_SHOWN, unicodeEscape);
}
