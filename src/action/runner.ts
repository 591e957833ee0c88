// The Actions runner's protocol, as an action sees it: inputs (`INPUT_<NAME>` variables),
// file commands (step outputs in GITHUB_OUTPUT, the job summary in GITHUB_STEP_SUMMARY)
// and workflow commands on stdout (annotations, masks, groups), with the runner's escaping
// rules. Written here rather than taken from @actions/core (see README.md). The workflow
// commands themselves, and the rule that keeps log text from being read as one, are on the
// ground floor (../workflow-commands.ts), since the CLI prints them too.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { quote } from '../display-text.js';

// Inputs.
export class InputError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(`input ${quote(input)}: ${message}`);
    this.name = 'InputError';
  }
}

export type Environment = Record<string, string | undefined>;

/** The variable of an input: its name upper-cased, spaces turned to underscores (dashes kept). */
export function inputVariableName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

export function getInput(env: Environment, name: string, options: { required?: boolean } = {}): string {
  const value = (env[inputVariableName(name)] ?? '').trim();
  if (options.required && value === '') throw new InputError(name, 'is required and was not given');
  return value;
}

/** YAML 1.2 core booleans, as the Actions toolkit accepts them. */
export function getBooleanInput(env: Environment, name: string, fallback: boolean): boolean {
  const value = getInput(env, name);
  if (value === '') return fallback;
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new InputError(name, `must be true or false, not ${quote(value)}`);
}

/** A list given one item per line or separated by commas; empty items dropped. */
export function getListInput(env: Environment, name: string): string[] {
  return getInput(env, name)
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function getChoiceInput<T extends string>(
  env: Environment,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const value = getInput(env, name);
  if (value === '') return fallback;
  if (!(choices as readonly string[]).includes(value))
    throw new InputError(name, `must be one of ${choices.join(', ')}, not ${quote(value)}`);
  return value as T;
}

// File commands. Outputs use the heredoc form with a random delimiter, so any value,
// multi-line JSON included, arrives intact.
export class FileCommandError extends Error {}

export function setOutput(env: Environment, name: string, value: string): void {
  const file = env.GITHUB_OUTPUT;
  if (!file)
    throw new FileCommandError(
      `cannot set output "${name}": GITHUB_OUTPUT is not set (not running in GitHub Actions?)`,
    );
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter))
    throw new FileCommandError(`output "${name}" contains its delimiter`);
  appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`, 'utf8');
}

export function appendStepSummary(env: Environment, markdown: string): boolean {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`, 'utf8');
  return true;
}
