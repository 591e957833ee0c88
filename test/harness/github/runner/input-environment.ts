// The INPUT_ variables the runner sets for an action: one per input of action.yml,
// the given value or the default with its expressions evaluated, plus any given
// input action.yml does not declare (with the runner's warning about it).
import { type ActionMetadata, inputVariableName } from './action-metadata.js';
import { type Contexts, evaluateTemplate } from './expressions.js';

export function inputEnvironment(
  metadata: ActionMetadata,
  given: Record<string, string>,
  contexts: Contexts,
): { env: Record<string, string>; warnings: string[] } {
  const env: Record<string, string> = {};
  const declared = new Set(metadata.inputs.map((i) => i.name.toLowerCase()));
  for (const input of metadata.inputs) {
    const provided = Object.entries(given).find(([name]) => name.toLowerCase() === input.name.toLowerCase());
    let value: string;
    if (provided) {
      value = provided[1];
    } else {
      try {
        value = evaluateTemplate(input.default ?? '', contexts);
      } catch (error) {
        throw new Error(
          `runAction: default of input '${input.name}' in ${metadata.path}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    env[inputVariableName(input.name)] = value;
  }
  const unexpected = Object.keys(given).filter((name) => !declared.has(name.toLowerCase()));
  for (const name of unexpected) env[inputVariableName(name)] = given[name] ?? '';
  const warnings =
    unexpected.length > 0
      ? [
          `Unexpected input(s) ${unexpected.map((n) => `'${n}'`).join(', ')}, valid inputs are [${metadata.inputs.map((i) => `'${i.name}'`).join(', ')}]`,
        ]
      : [];
  return { env, warnings };
}
