// The action's inputs as the runner passes them: `INPUT_<NAME>` environment variables,
// the name upper-cased with spaces turned to underscores (dashes kept).
export class InputError extends Error {
  constructor(
    readonly input: string,
    message: string,
  ) {
    super(`input "${input}": ${message}`);
    this.name = 'InputError';
  }
}

export type Environment = Record<string, string | undefined>;

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
  throw new InputError(name, `must be true or false, not "${value}"`);
}

/** A list given one item per line or separated by commas; empty items dropped. */
export function getListInput(env: Environment, name: string): string[] {
  return getInput(env, name)
    .split(/[\n,]/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

export function getChoiceInput<T extends string>(env: Environment, name: string, choices: readonly T[], fallback: T): T {
  const value = getInput(env, name);
  if (value === '') return fallback;
  if (!(choices as readonly string[]).includes(value)) throw new InputError(name, `must be one of ${choices.join(', ')}, not "${value}"`);
  return value as T;
}
