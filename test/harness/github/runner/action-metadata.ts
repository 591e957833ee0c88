// The parts of an action's metadata file (action.yml) the runner uses to start a
// JavaScript action: its inputs with their defaults, `runs.using` and `runs.main`.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';

export interface ActionInput {
  name: string;
  /** The default as the runner reads it: the scalar's text, before expressions are evaluated. */
  default: string | undefined;
  required: boolean;
}

export interface ActionMetadata {
  path: string;
  inputs: ActionInput[];
  using: string;
  /** Absolute path of runs.main. */
  main: string;
}

/** The environment variable carrying an input: INPUT_ + name upper-cased, spaces to `_`, dashes kept. */
export function inputVariableName(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

export function readActionMetadata(path: string): ActionMetadata {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`reading action metadata ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new Error(`parsing action metadata ${path}: ${doc.errors.map((e) => e.message).join('; ')}`);
  const inputs: ActionInput[] = [];
  const inputsNode = doc.get('inputs', true);
  if (inputsNode !== undefined && inputsNode !== null) {
    if (!isMap(inputsNode)) throw new Error(`action metadata ${path}: 'inputs' must be a mapping`);
    for (const pair of inputsNode.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (!name) throw new Error(`action metadata ${path}: an input has no name`);
      const spec = pair.value;
      let def: string | undefined;
      let required = false;
      if (isMap(spec)) {
        const node = spec.get('default', true);
        if (isScalar(node)) {
          // Plain scalars keep their text (`false`, `1.0`); quoted and block scalars their value.
          def =
            node.value === null
              ? ''
              : node.type === 'PLAIN' && typeof node.source === 'string'
                ? node.source
                : String(node.value);
        } else if (node !== undefined) {
          throw new Error(`action metadata ${path}: the default of input '${name}' must be a scalar`);
        }
        const req = spec.get('required');
        required = req === true || req === 'true';
      }
      inputs.push({ name, default: def, required });
    }
  }
  const using = doc.getIn(['runs', 'using']);
  const main = doc.getIn(['runs', 'main']);
  if (typeof using !== 'string') throw new Error(`action metadata ${path}: runs.using is missing`);
  if (typeof main !== 'string') throw new Error(`action metadata ${path}: runs.main is missing`);
  return { path, inputs, using, main: resolve(dirname(path), main) };
}
