// Credentials found while connecting (tokens, keys, passwords, exec plugin env values and
// outputs) are handed to a callback so that the caller can mask them (the action calls
// `core.setSecret`). Error texts are redacted with the same values.

export type RegisterSecret = (value: string) => void;

/** Keeps the values registered so far, forwards each new one to the caller's callback. */
export class SecretRegistry {
  private readonly values = new Set<string>();

  constructor(private readonly forward: RegisterSecret = () => {}) {}

  register(value: string | Buffer | undefined | null): void {
    if (value === undefined || value === null) return;
    const text = typeof value === 'string' ? value : value.toString('utf8');
    for (const candidate of [text, text.trim()]) {
      // Very short values would mask innocent text everywhere; the runner ignores them too.
      if (candidate.length < 4 || this.values.has(candidate)) continue;
      this.values.add(candidate);
      this.forward(candidate);
    }
    // Multi-line values (PEM keys) are masked line by line by the runner; do the same.
    if (text.includes('\n')) for (const line of text.split('\n')) if (line.trim().length >= 8) this.register(line.trim());
  }

  /** The text with every registered value replaced by `***`. */
  redact(text: string): string {
    let out = text;
    const longestFirst = [...this.values].sort((a, b) => b.length - a.length);
    for (const value of longestFirst) out = out.split(value).join('***');
    return out;
  }
}
