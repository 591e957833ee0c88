// The runner's secret masker, reduced to what a test needs: every registered value
// is replaced by `***` in what the log shows, together with the encodings the runner
// also masks (JSON-string-escaped, URI-escaped, base64).

export class SecretMasker {
  private readonly values = new Set<string>();

  add(value: string): void {
    if (value.trim() === '') return;
    this.values.add(value);
    for (const variant of encodings(value)) if (variant.trim() !== '') this.values.add(variant);
  }

  /** The registered values, longest first (so that a secret containing another is masked whole). */
  list(): string[] {
    return [...this.values].sort((a, b) => b.length - a.length);
  }

  mask(text: string): string {
    let out = text;
    for (const value of this.list()) out = out.split(value).join('***');
    return out;
  }
}

/** The forms of a secret that count as the secret (also used by the leak check). */
export function encodings(value: string): string[] {
  const out = new Set<string>();
  out.add(JSON.stringify(value).slice(1, -1));
  out.add(encodeURIComponent(value));
  out.add(Buffer.from(value, 'utf8').toString('base64'));
  out.delete(value);
  return [...out];
}
