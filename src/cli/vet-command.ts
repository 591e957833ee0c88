// `timoni-fleet vet`: validates a bundle for every selected cluster of the runtime, as
// `timoni bundle vet` does, and optionally prints the computed value per cluster. Runtime
// value queries are read from the clusters (query-access.ts); values read from Secrets are
// redacted in what is printed.
import type { CueEngine } from '../cue/index.js';
import type { FlagSpec, ParsedArguments } from './arguments.js';
import { bundleFlags, readBundleInputs } from './bundle-options.js';
import { logPrefix } from '../fleet/change-line.js';
import type { CommandIO } from './command-io.js';
import { evaluateWithQueries, redactStrings } from './query-access.js';

export const vetFlags: FlagSpec[] = [
  ...bundleFlags,
  { name: 'print-value', kind: 'boolean', description: 'Print the computed bundle value of each cluster' },
];

export async function runVet(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const inputs = readBundleInputs(engine, args, io.cwd, io.env);
  const { results, access } = await evaluateWithQueries(engine, inputs, args, io);
  const printValue = args.booleans.get('print-value') === true;

  if (inputs.output === 'json') {
    const clusters = results.map((result) => ({ name: result.cluster.name, group: result.cluster.group, bundle: redactStrings(result.value, access.redact) }));
    io.stdout(`${JSON.stringify({ clusters }, null, 2)}\n`);
    return 0;
  }
  for (const result of results) {
    if (printValue) {
      const prefix = inputs.runtime.isDefault ? '' : `${JSON.stringify(result.cluster.name)}: `;
      io.stdout(`${prefix}bundle: ${access.redact(result.cueText)}\n`);
      continue;
    }
    for (const instance of result.bundle.instances) {
      io.stderr(`${logPrefix(result.bundle.name, result.cluster.name, instance.name)} > instance is valid\n`);
    }
  }
  if (!printValue && results[0]) io.stderr(`${logPrefix(results[0].bundle.name)} > bundle is valid\n`);
  return 0;
}
