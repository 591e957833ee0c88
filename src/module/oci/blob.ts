// Downloads a blob (a module layer) into memory: the declared size is checked against a
// limit before the download, the bytes are hashed as they arrive, and the result must
// match the descriptor's size and sha256 digest exactly.
import { createHash } from 'node:crypto';
import { OciError } from './errors.js';
import { BodyTooLargeError, NetworkError, readBody } from './http.js';
import type { Descriptor } from './manifest.js';
import type { RegistryClient } from './registry-client.js';

export async function downloadBlob(client: RegistryClient, descriptor: Descriptor, maxSize: number): Promise<Buffer> {
  const what = `blob ${descriptor.digest}`;
  if (descriptor.size > maxSize) {
    throw new OciError('too-large', client.url, `${what} is ${descriptor.size} bytes, more than the limit of ${maxSize}`);
  }
  return client.get(`blobs/${descriptor.digest}`, what, undefined, async (res) => {
    const hash = createHash('sha256');
    let bytes: Buffer;
    try {
      // One byte more than declared is enough to tell that the blob is not the one described.
      bytes = await readBody(res, descriptor.size + 1, (chunk) => hash.update(chunk));
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw new OciError('digest-mismatch', client.url, `${what} is larger than the ${descriptor.size} bytes its descriptor says`);
      }
      throw error;
    }
    if (bytes.length < descriptor.size) {
      // A body shorter than declared with a clean end: the transfer was cut; try again.
      throw new NetworkError('ESHORTBODY', `${what}: got ${bytes.length} of ${descriptor.size} bytes`);
    }
    const digest = `sha256:${hash.digest('hex')}`;
    if (digest !== descriptor.digest) {
      throw new OciError('digest-mismatch', client.url, `${what} failed verification: its content hashes to ${digest}`);
    }
    return bytes;
  });
}
