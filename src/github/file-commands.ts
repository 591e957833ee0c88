// The runner's file commands: step outputs (GITHUB_OUTPUT) and the job summary
// (GITHUB_STEP_SUMMARY). Outputs use the heredoc form with a random delimiter, so any
// value, multi-line JSON included, arrives intact.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { Environment } from './action-inputs.js';

export class FileCommandError extends Error {}

export function setOutput(env: Environment, name: string, value: string): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) throw new FileCommandError(`cannot set output "${name}": GITHUB_OUTPUT is not set (not running in GitHub Actions?)`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter)) throw new FileCommandError(`output "${name}" contains its delimiter`);
  appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`, 'utf8');
}

export function appendStepSummary(env: Environment, markdown: string): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`, 'utf8');
  return true;
}
