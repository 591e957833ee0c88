// Timoni base64-decodes the values it reads from a v1 Secret when they decode as standard,
// padded base64 (Go's base64.StdEncoding, which skips line breaks), and keeps them as they
// are otherwise.

const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes standard, padded base64; undefined when it does not decode. */
export function decodeStrictBase64(text: string): string | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  if (!STRICT_BASE64.test(compact)) return undefined;
  return Buffer.from(compact, 'base64').toString('utf8');
}

export function isSecretObject(object: Record<string, unknown>): boolean {
  return object.apiVersion === 'v1' && object.kind === 'Secret';
}
