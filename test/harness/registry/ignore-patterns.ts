// The gitignore dialect Timoni applies when it packages a module (timoni.ignore and its
// own layer rules), with the semantics of fluxcd/pkg/sourceignore's matcher: the last
// pattern that matches decides; a pattern matching a directory also matches everything
// below it; `!` re-includes; a trailing `/` matches directories only; a pattern holding
// a `/` is anchored at the module root, one without matches a name at any depth.

/** Go's path/filepath.Match for one path component, as a RegExp; undefined when malformed. */
export function compileComponentGlob(pattern: string): RegExp | undefined {
  const escape = (char: string) => char.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  let source = '';
  const chars = Array.from(pattern);
  let i = 0;
  // One literal of a character class: escaped with '\', never a bare '-' or ']'.
  const classChar = (): string | undefined => {
    let char = chars[i];
    if (char === undefined || char === '-' || char === ']') return undefined;
    if (char === '\\') {
      i++;
      char = chars[i];
      if (char === undefined) return undefined;
    }
    i++;
    return char;
  };
  while (i < chars.length) {
    const char = chars[i] as string;
    if (char === '*') {
      source += '[^/]*';
      i++;
    } else if (char === '?') {
      source += '[^/]';
      i++;
    } else if (char === '\\') {
      const next = chars[i + 1];
      if (next === undefined) return undefined;
      source += escape(next);
      i += 2;
    } else if (char === '[') {
      i++;
      let negate = false;
      if (chars[i] === '^') {
        negate = true;
        i++;
      }
      let ranges = '';
      for (let count = 0; ; count++) {
        if (chars[i] === ']' && count > 0) {
          i++;
          break;
        }
        const low = classChar();
        if (low === undefined) return undefined;
        let high = low;
        if (chars[i] === '-') {
          i++;
          const end = classChar();
          if (end === undefined) return undefined;
          high = end;
        }
        if ((low.codePointAt(0) ?? 0) > (high.codePointAt(0) ?? 0)) return undefined;
        ranges += low === high ? escape(low) : `${escape(low)}-${escape(high)}`;
      }
      source += negate ? `[^${ranges}]` : `[${ranges}]`;
    } else {
      source += escape(char);
      i++;
    }
  }
  return new RegExp(`^${source}$`, 'u');
}

function componentMatches(glob: string, name: string): boolean {
  return compileComponentGlob(glob)?.test(name) ?? false;
}

export type MatchResult = 'none' | 'exclude' | 'include';

export class IgnorePattern {
  private readonly parts: string[];
  private readonly inclusion: boolean;
  private readonly dirOnly: boolean;
  private readonly anchored: boolean;

  constructor(readonly source: string) {
    let text = source;
    this.inclusion = text.startsWith('!');
    if (this.inclusion) text = text.slice(1);
    if (!text.endsWith('\\ ')) text = text.replace(/ +$/, '');
    this.dirOnly = text.endsWith('/');
    if (this.dirOnly) text = text.slice(0, -1);
    this.anchored = text.includes('/');
    this.parts = text.split('/');
  }

  /** `path` is relative to the module root, split at '/'; the root itself never matches. */
  match(path: string[], isDir: boolean): MatchResult {
    if (path.length === 0) return 'none';
    const matched = this.anchored ? this.matchAnchored(path, isDir) : this.matchName(path, isDir);
    if (!matched) return 'none';
    return this.inclusion ? 'include' : 'exclude';
  }

  /** A pattern without '/' matches any component; dir-only patterns not a file's own name. */
  private matchName(path: string[], isDir: boolean): boolean {
    const glob = this.parts[0] ?? '';
    for (const [index, name] of path.entries()) {
      if (!componentMatches(glob, name)) continue;
      return !(this.dirOnly && !isDir && index === path.length - 1);
    }
    return false;
  }

  /** Anchored patterns match a prefix of the path component by component; `**` spans directories. */
  private matchAnchored(path: string[], isDir: boolean): boolean {
    let rest = path;
    let matched = false;
    let traverse = false;
    for (const [index, part] of this.parts.entries()) {
      if (part === '') {
        traverse = false;
        continue;
      }
      if (part === '**') {
        if (index === this.parts.length - 1) break;
        traverse = true;
        continue;
      }
      if (part.includes('**')) return false;
      if (rest.length === 0) return false;
      if (traverse) {
        traverse = false;
        while (rest.length > 0) {
          const name = rest[0] as string;
          rest = rest.slice(1);
          if (componentMatches(part, name)) {
            matched = true;
            break;
          }
          if (rest.length === 0) matched = false;
        }
      } else {
        if (!componentMatches(part, rest[0] as string)) return false;
        matched = true;
        rest = rest.slice(1);
      }
    }
    if (matched && this.dirOnly && !isDir && rest.length === 0) matched = false;
    return matched;
  }
}

/** Blank lines and `#` comments are skipped, as in timoni.ignore. */
export function parseIgnoreLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => !line.startsWith('#') && line.trim() !== '');
}

export class IgnoreMatcher {
  private readonly patterns: IgnorePattern[];

  constructor(lines: string[]) {
    this.patterns = lines.map((line) => new IgnorePattern(line));
  }

  /** True when the path is excluded: the last matching pattern decides. */
  ignores(path: string[], isDir: boolean): boolean {
    for (let index = this.patterns.length - 1; index >= 0; index--) {
      const result = (this.patterns[index] as IgnorePattern).match(path, isDir);
      if (result !== 'none') return result === 'exclude';
    }
    return false;
  }
}
