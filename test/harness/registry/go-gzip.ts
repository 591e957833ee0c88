// Gzip as Timoni writes its layers: Go's compress/gzip at the default level, run through
// go/helper. Node's zlib at the same level produces other bytes (another deflate
// implementation), so only this makes layer digests equal to `timoni mod push`'s.
import { execFile } from 'node:child_process';
import { ensureBinaries } from './binaries.js';

export async function goGzip(bytes: Buffer): Promise<Buffer> {
  const { helper } = await ensureBinaries((line) => process.stderr.write(`registry: ${line}\n`));
  return new Promise((resolveGzip, reject) => {
    const child = execFile(
      helper,
      ['gzip'],
      { encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`registry-helper gzip failed: ${stderr.toString().trim() || error.message}`));
        else resolveGzip(stdout);
      },
    );
    child.stdin?.end(bytes);
  });
}
