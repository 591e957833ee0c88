// Parses `WWW-Authenticate` challenges (RFC 7235) as registries send them:
//   Bearer realm="https://auth.example/token",service="registry",scope="repository:a/b:pull"
//   Basic realm="Registry Realm"
// Several challenges may share one header (Node.js joins repeated headers with ", ").

export interface Challenge {
  /** Lower-cased scheme: `bearer`, `basic`, ... */
  scheme: string;
  /** Parameters with lower-cased names; values unquoted. */
  params: Record<string, string>;
}

const TOKEN = /[!#$%&'*+.^_`|~0-9A-Za-z-]+/y;

export function parseChallenges(header: string): Challenge[] {
  const challenges: Challenge[] = [];
  let i = 0;
  const skip = (chars: RegExp): void => {
    while (i < header.length && chars.test(header[i] ?? '')) i += 1;
  };
  const token = (): string | undefined => {
    TOKEN.lastIndex = i;
    const match = TOKEN.exec(header);
    if (!match) return undefined;
    i = TOKEN.lastIndex;
    return match[0];
  };
  let current: Challenge | undefined;
  while (i < header.length) {
    skip(/[\s,]/);
    if (i >= header.length) break;
    const word = token();
    if (word === undefined) {
      // an unexpected character: skip the rest of this element rather than give up
      while (i < header.length && header[i] !== ',') i += 1;
      continue;
    }
    skip(/[ \t]/);
    if (header[i] === '=' && current) {
      i += 1;
      skip(/[ \t]/);
      let value: string;
      if (header[i] === '"') {
        i += 1;
        value = '';
        while (i < header.length && header[i] !== '"') {
          if (header[i] === '\\' && i + 1 < header.length) i += 1;
          value += header[i];
          i += 1;
        }
        i += 1;
      } else {
        // lenient: an unquoted value runs to the next comma or space
        const start = i;
        while (i < header.length && !/[\s,]/.test(header[i] ?? '')) i += 1;
        value = header.slice(start, i);
      }
      current.params[word.toLowerCase()] = value;
      continue;
    }
    if (header[i] === '=' && !current) {
      // token68 or a parameter before any scheme: malformed, skip to the next comma
      while (i < header.length && header[i] !== ',') i += 1;
      continue;
    }
    current = { scheme: word.toLowerCase(), params: {} };
    challenges.push(current);
  }
  return challenges;
}

/** The challenge to answer: Bearer when offered, else Basic, else the first. */
export function preferredChallenge(challenges: Challenge[]): Challenge | undefined {
  return challenges.find((c) => c.scheme === 'bearer') ?? challenges.find((c) => c.scheme === 'basic') ?? challenges[0];
}
