// Splits an action's output stream into lines as the runner reads them: LF, CRLF or a
// lone CR ends a line (.NET's StreamReader.ReadLine), UTF-8 decoded across chunks.
import { StringDecoder } from 'node:string_decoder';
import type { PrintedLine } from './runner-log.js';

export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';

  constructor(
    private readonly stream: 'stdout' | 'stderr',
    private readonly sink: PrintedLine[],
  ) {}

  push(chunk: Buffer): void {
    this.pending += this.decoder.write(chunk);
    this.drain(false);
  }

  end(): void {
    this.pending += this.decoder.end();
    this.drain(true);
  }

  private drain(final: boolean): void {
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.pending);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF still to come.
      if (!final && match[0] === '\r' && match.index === this.pending.length - 1) break;
      this.sink.push({ stream: this.stream, text: this.pending.slice(0, match.index) });
      this.pending = this.pending.slice(match.index + match[0].length);
    }
    if (final && this.pending !== '') {
      this.sink.push({ stream: this.stream, text: this.pending });
      this.pending = '';
    }
  }
}
