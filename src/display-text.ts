// Text from the user's files, shown to a person: one rule for every log line and terminal
// line (the Actions log, the CLI's output), and one for a name or value quoted in a message.
//
// A bundle, runtime or module is written by a pull request's author; what it names (an
// object, an instance, a cluster, a label) and what it holds (values, CUE error texts) can
// carry any character. Printed raw, an ESC or CSI (U+009B) starts an ANSI sequence that a
// terminal or the Actions log viewer interprets (colours, cursor moves that overwrite what
// was printed before, hyperlinks), and a line break or separator starts a new line that
// could read as a workflow command or as our own output. So:
//   - a log line shows every control character escaped, JSON-style (`\u001b[31m`), except
//     tab and the line break itself: C0 (U+0000-U+001F), DEL, C1 (U+0080-U+009F, NEL and
//     CSI among them), and the Unicode line and paragraph separators (U+2028, U+2029); a
//     CRLF is a line break, a lone CR is shown escaped (a terminal would return the cursor
//     and print over the line);
//   - a name or value quoted in a message is JSON-quoted, and beyond what JSON escapes
//     (C0, `"` and `\`), DEL, C1, the separators and the invisible format characters
//     (bidirectional controls, zero-width characters, U+FEFF: Unicode category Cf) are
//     escaped as well, so that what a reader sees between the quotes is what the name is.
// An ordinary name reads the same as before: `"web"` is `"web"`.

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const LOG_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\r\u2028\u2029]/g;
const QUOTED_INVISIBLE = /[\u007f-\u009f\u2028\u2029\p{Cf}]/gu;

function unicodeEscape(character: string): string {
  let escaped = '';
  // Code units, as JSON writes them: a character beyond U+FFFF becomes its surrogate pair.
  for (let i = 0; i < character.length; i++) escaped += `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return escaped;
}

/** Text as a log or terminal line shows it: control characters and separators escaped, line breaks kept (CRLF as LF). */
export function escapeControls(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(LOG_CONTROL, unicodeEscape);
}

/** A name or value for a message: JSON-quoted, with C1 controls, separators and invisible format characters escaped. */
export function quote(value: string): string {
  return JSON.stringify(value).replace(QUOTED_INVISIBLE, unicodeEscape);
}
