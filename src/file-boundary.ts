// The folders that files read for a bundle may come from. On a pull request every bundle,
// runtime and local module file is the pull request author's; a committed symlink such as
// `mod/leak -> /proc/self/environ` or `runtime.cue -> /etc/passwd` would otherwise hand the
// process environment (tokens, kubeconfig keys) or any host file to CUE, which quotes it in
// errors and embeds it in objects. So every path is resolved after symlinks (realpath) and
// must land inside one of the boundary's roots: the workspace in the action; in the CLI the
// current directory, the folders of the files named on the command line and any folder
// given with --allow-path. Symlinks that stay inside keep working (Timoni's own examples link
// `cue.mod/pkg` within their repository). A refusal names the file and where it points,
// never its content.
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

export class FileBoundaryError extends Error {
  override name = 'FileBoundaryError';
}

export class FileBoundary {
  readonly roots: readonly string[];

  /** Roots are resolved after symlinks; a root that does not exist is ignored. */
  constructor(roots: readonly string[]) {
    const resolved = new Set<string>();
    for (const root of roots) {
      try {
        resolved.add(realpathSync(resolve(root)));
      } catch {
        // A folder that does not exist holds no file to allow.
      }
    }
    this.roots = [...resolved];
  }

  /** True when a real (symlink-free) path lies inside one of the roots. */
  contains(realPath: string): boolean {
    return this.roots.some((root) => {
      const rel = relative(root, realPath);
      return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
    });
  }

  /**
   * The real path of `path`, checked to lie inside the boundary. `shownAs` is how messages
   * name the file (the user's own spelling of it).
   */
  check(path: string, shownAs: string = path): string {
    let real: string;
    try {
      real = realpathSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw new FileBoundaryError(`${shownAs}: symbolic link loop`);
      throw error;
    }
    if (!this.contains(real)) {
      const where = real === resolve(path) ? 'is' : `points to ${real}, which is`;
      throw new FileBoundaryError(
        `${shownAs} ${where} outside ${this.describe()}; files of a bundle, runtime or module must stay inside it`,
      );
    }
    return real;
  }

  describe(): string {
    if (this.roots.length === 1) return `the allowed folder ${this.roots[0]}`;
    return `the allowed folders (${this.roots.join(', ')})`;
  }
}

/** A boundary that allows everything: for tests and callers that read trusted files only. */
export const UNBOUNDED = new FileBoundary(['/']);
