// A module's cue.mod files sent to the engine once (src/cue/shim/filesets.go). They are
// most of a module's bytes (the Kubernetes schemas under cue.mod/gen) and the same for
// every instance build of it; each load then sends only its own files and names the set.
// The engine keeps the 8 most recently used sets; a load naming a set it dropped fails
// with a message of its own, and the set is sent again.
import { createHash } from 'node:crypto';
import { CueError } from './error.js';
import type { LoadOptions } from './types.js';

/** How many sets are remembered here (the engine keeps as many: maxFileSets). */
const REMEMBERED = 8;

/** The start of the engine's message for a set it no longer keeps (fileSetUnknownPrefix). */
const UNKNOWN_SET = 'CUE file set not kept:';

type Files = LoadOptions['files'];

/** Whether a path is in a cue.mod folder (of the module root or of a module below it). */
function inCueMod(path: string): boolean {
  return path.startsWith('cue.mod/') || path.includes('/cue.mod/');
}

/** The load's files split into those of cue.mod folders and its own. */
export function splitFiles(files: Files): { shared: Files; own: Files } {
  const shared: Files = {};
  const own: Files = {};
  for (const [path, content] of Object.entries(files)) {
    if (inCueMod(path)) shared[path] = content;
    else own[path] = content;
  }
  return { shared, own };
}

/** A digest of files: names and contents (text and bytes told apart). */
export function filesDigest(files: Files): string {
  const hash = createHash('sha256');
  const length = Buffer.alloc(8);
  const field = (kind: string, data: string | Uint8Array) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    length.writeBigUInt64LE(BigInt(bytes.byteLength));
    hash.update(kind).update(length).update(bytes);
  };
  for (const path of Object.keys(files).sort()) {
    const content = files[path] as string | Uint8Array;
    field('p', path);
    field(typeof content === 'string' ? 't' : 'b', content);
  }
  return hash.digest('hex');
}

function sameContent(a: string | Uint8Array | undefined, b: string | Uint8Array | undefined): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a !== undefined && b !== undefined && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

/** Whether two file maps hold the same names and contents (the same string, as a later build sends, compares at once). */
function sameFiles(a: Files, b: Files): boolean {
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  return names.every((name) => name in b && sameContent(a[name], b[name]));
}

/** The sets one engine holds, by digest, most recently used last. */
export class FileSets {
  readonly #sets = new Map<string, number>();
  /** The files of the latest digests: every build of a module sends the same strings again. */
  readonly #digests: Array<{ files: Files; digest: string }> = [];

  /** filesDigest, remembered for the last few file maps (a module's cue.mod files are hashed once, not at every load). */
  digest(files: Files): string {
    const seen = this.#digests.find((entry) => sameFiles(entry.files, files));
    if (seen) return seen.digest;
    const digest = filesDigest(files);
    this.#digests.unshift({ files, digest });
    this.#digests.length = Math.min(this.#digests.length, REMEMBERED);
    return digest;
  }

  /** The engine's number for these files, if it was given them. */
  known(digest: string): number | undefined {
    const id = this.#sets.get(digest);
    if (id === undefined) return undefined;
    this.#sets.delete(digest);
    this.#sets.set(digest, id);
    return id;
  }

  remember(digest: string, id: number): void {
    this.#sets.delete(digest);
    this.#sets.set(digest, id);
    while (this.#sets.size > REMEMBERED) {
      const oldest = this.#sets.keys().next().value as string;
      this.#sets.delete(oldest);
    }
  }

  forget(digest: string): void {
    this.#sets.delete(digest);
  }
}

/** Whether a load failed only because the engine no longer keeps the named set. */
export function isUnknownSet(error: unknown): boolean {
  return (
    error instanceof CueError &&
    error.diagnostics.length === 1 &&
    (error.diagnostics[0]?.message ?? '').startsWith(UNKNOWN_SET)
  );
}
