// The hidden marker that identifies the comment of one bundle, so that the action finds
// its comment again and updates it in place instead of adding another.
//
// Form: `<!-- timoni-fleet:bundle=<name> -->`, the name URI-encoded so that no name can
// end the HTML comment early or hold spaces. It is the first line of every comment body.

const PREFIX = '<!-- timoni-fleet:bundle=';
const SUFFIX = ' -->';
const MARKER = /<!-- timoni-fleet:bundle=([^\s]+) -->/;

export interface CommentMarker {
  bundle: string;
}

/** The hidden marker for the comment of a bundle. */
export function commentMarker(bundleName: string): string {
  return `${PREFIX}${encodeURIComponent(bundleName)}${SUFFIX}`;
}

/** The marker found in a comment body, or null when the body holds none (or a malformed one). */
export function findMarker(body: string): CommentMarker | null {
  const match = MARKER.exec(body);
  if (!match?.[1]) return null;
  try {
    return { bundle: decodeURIComponent(match[1]) };
  } catch {
    return null;
  }
}

/** True when the comment body is the comment of this bundle. */
export function isCommentOf(body: string, bundleName: string): boolean {
  return findMarker(body)?.bundle === bundleName;
}
