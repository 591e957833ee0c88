// Credentials found while connecting (tokens, keys, passwords, exec plugin env values and
// outputs) are handed to a callback so that the caller can mask them (the action calls
// `core.setSecret`). Error texts are redacted with the same values.

export type RegisterSecret = (value: string) => void;

/** Keeps the values registered so far, forwards each new one to the caller's callback. */
export class SecretRegistry {
  private readonly values = new Set<string>();

  constructor(private readonly forward: RegisterSecret = () => {}) {}

  /**
   * Registers a credential. Multi-line values (PEM keys) are also registered line by line,
   * as the runner masks line by line; `wholeOnly` skips that for documents whose lines are
   * not secret by themselves (an exec plugin's JSON output).
   */
  register(value: string | Buffer | undefined | null, wholeOnly = false): void {
    if (value === undefined || value === null) return;
    const text = typeof value === 'string' ? value : value.toString('utf8');
    for (const candidate of [text, text.trim()]) {
      if (candidate === '' || this.values.has(candidate)) continue;
      this.values.add(candidate);
      this.forward(candidate);
    }
    if (!wholeOnly && text.includes('\n')) for (const line of text.split('\n')) if (line.trim().length >= 8) this.register(line.trim());
  }

  /** The text with every registered value (of 4 characters or more) replaced by `***`. */
  redact(text: string): string {
    let out = text;
    // A value of one to three characters would blank out innocent text everywhere.
    const longestFirst = [...this.values].filter((value) => value.length >= 4).sort((a, b) => b.length - a.length);
    for (const value of longestFirst) out = out.split(value).join('***');
    return out;
  }
}
