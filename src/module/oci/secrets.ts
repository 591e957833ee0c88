// Keeps every credential value the client handles (passwords, tokens, base64 `auth`
// strings, Authorization header values), reports each new one to the caller's `secrets`
// callback (the action masks it in logs), and scrubs them from error messages.

export type SecretSink = (value: string) => void;

export class SecretRedactor {
  readonly #values = new Set<string>();
  readonly #sink: SecretSink | undefined;

  constructor(sink?: SecretSink) {
    this.#sink = sink;
  }

  /** Registers `value` (ignored when shorter than 3 characters, which would mask common text). */
  add(value: string | undefined): void {
    if (value === undefined || value.length < 3 || this.#values.has(value)) return;
    this.#values.add(value);
    this.#sink?.(value);
  }

  /** `text` with every registered value replaced by `***`, longest first. */
  redact(text: string): string {
    let result = text;
    for (const value of [...this.#values].sort((a, b) => b.length - a.length)) {
      result = result.split(value).join('***');
    }
    return result;
  }
}
