// How long GitHub considers a comment body, and the limit it enforces.
//
// GitHub documents a maximum of 65,536 characters, and its 422 says "Body is too long
// (maximum is 65536 characters)". GitHub is a Rails application: a Ruby String's
// `length` on a UTF-8 body counts Unicode code points, not UTF-16 code units (what
// JavaScript's `String.length` counts) and not bytes. The stand-in therefore counts
// code points: an emoji outside the Basic Multilingual Plane is one character here,
// two in JavaScript's `.length`.
//
// Some users report measuring a looser limit on github.com (262,144 UTF-8 bytes for
// comments). 65,536 code points is never more than 262,144 bytes (4 bytes at most per
// code point), so a body the stand-in accepts is accepted by GitHub under either
// reading: the stand-in is never more lenient than GitHub, only as strict as its
// documentation. Product code that budgets with `String.length` is safe under both.

export const COMMENT_BODY_MAX_CHARACTERS = 65_536;

/** The number of characters GitHub counts in `body` (Unicode code points). */
export function githubCharacterCount(body: string): number {
  let count = 0;
  for (const _codePoint of body) count += 1;
  return count;
}
