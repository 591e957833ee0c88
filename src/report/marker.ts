// The hidden marker that identifies the comment of one bundle, so that the action finds
// its comment again and updates it in place instead of adding another.
//
// Form: `<!-- timoni-fleet:bundle=<name> -->`, the name URI-encoded so that no name can
// end the HTML comment early or hold spaces. It is the first line of every comment body,
// and a comment is only taken as the bundle's when its body starts with it (a comment
// that quotes the marker, or a diff that contains another bundle's, is never taken).
// When the run failed before the bundle's name was known, the marker names the bundle
// files instead (`files=<paths>`), so that two such bundles never share one comment.

const PREFIX = '<!-- timoni-fleet:';
const SUFFIX = ' -->';
const MARKER = /^<!-- timoni-fleet:bundle=([^\s]+) -->/;

export interface CommentMarker {
  bundle: string;
}

/** The hidden marker for the comment of a bundle (or of its files, when its name is unknown). */
export function commentMarker(bundleName: string, bundleFiles: readonly string[] = []): string {
  if (bundleName === '' && bundleFiles.length > 0) return `${PREFIX}files=${encodeURIComponent(bundleFiles.join(','))}${SUFFIX}`;
  return `${PREFIX}bundle=${encodeURIComponent(bundleName)}${SUFFIX}`;
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
