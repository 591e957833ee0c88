// The annotations `timoni mod push` adds from the module's Git checkout when they are
// not given: created (SOURCE_DATE_EPOCH, else the last commit time), source (the
// `origin` remote URL) and revision (the HEAD commit). Git failures leave them out.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';

export const createdAnnotation = 'org.opencontainers.image.created';
export const sourceAnnotation = 'org.opencontainers.image.source';
export const revisionAnnotation = 'org.opencontainers.image.revision';

function git(dir: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolveOutput) => {
    execFile('git', args, { cwd: dir, timeout: 10_000 }, (error, stdout) =>
      resolveOutput(error ? undefined : stdout.trim()),
    );
  });
}

/** RFC 3339 in UTC with second precision, as Go's time.RFC3339 prints a UTC time. */
export function rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Fills the missing created, source and revision annotations in place. */
export async function appendGitMetadata(
  modulePath: string,
  annotations: Record<string, string>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  let dir = modulePath;
  try {
    if (!statSync(modulePath).isDirectory()) dir = dirname(modulePath);
  } catch {
    // A missing path fails later, when the module is read.
  }
  if (!(createdAnnotation in annotations)) {
    const epoch = env.SOURCE_DATE_EPOCH;
    if (epoch && /^[+-]?\d+$/.test(epoch)) annotations[createdAnnotation] = rfc3339(Number(epoch));
    if (!(createdAnnotation in annotations)) {
      const committed = await git(dir, ['--no-pager', 'log', '-1', '--format=%ct']);
      if (committed && /^\d+$/.test(committed)) annotations[createdAnnotation] = rfc3339(Number(committed));
    }
  }
  if (!(sourceAnnotation in annotations)) {
    const origin = await git(dir, ['config', '--get', 'remote.origin.url']);
    if (origin !== undefined) annotations[sourceAnnotation] = origin;
  }
  if (!(revisionAnnotation in annotations)) {
    const head = await git(dir, ['show', '-s', '--format=%H']);
    if (head !== undefined) annotations[revisionAnnotation] = head;
  }
}
