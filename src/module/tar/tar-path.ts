// Turns a tar entry name into a safe path relative to the extraction folder, or says why
// it is unsafe: absolute paths, `..` segments, backslashes, drive letters and NUL bytes
// are refused (a "zip slip" would write outside the folder).

export type SafePath = { ok: true; path: string } | { ok: false; reason: string };

/**
 * `./a//b/` becomes `a/b`; the archive root (`.` or `./`) becomes the empty string.
 */
export function safeEntryPath(name: string): SafePath {
  if (name.includes('\0')) return { ok: false, reason: 'contains a NUL byte' };
  if (name.includes('\\')) return { ok: false, reason: 'contains a backslash' };
  if (name.startsWith('/')) return { ok: false, reason: 'is an absolute path' };
  if (/^[A-Za-z]:/.test(name)) return { ok: false, reason: 'starts with a drive letter' };
  const segments: string[] = [];
  for (const segment of name.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') return { ok: false, reason: 'contains a ".." segment' };
    segments.push(segment);
  }
  return { ok: true, path: segments.join('/') };
}
