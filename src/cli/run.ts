// Dispatches `timoni-fleet <command> [flags]` to its command, maps outcomes to exit codes,
// and turns a failed command into what the user reads: the message on stderr, every CUE
// diagnostic with its file, line and field, and, inside GitHub Actions, an annotation on
// the file and line for each.
import { loadCueEngine, type CueEngine } from '../cue/index.js';
import { errorAnnotations } from '../action/annotations.js';
import { quote } from '../display-text.js';
import { formatFlagHelp, parseArguments, UsageError, type FlagSpec, type ParsedArguments } from './arguments.js';
import { runApply, runBuild, runDelete, runDiff, runStatus, runVet } from './commands.js';
import type { CommandIO } from './io.js';
import { buildFlags, cueMemoryLimit, fleetFlagsFor, vetFlags } from './options.js';

interface Command {
  summary: string;
  flags: FlagSpec[];
  run(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number>;
}

const commands: Record<string, Command> = {
  vet: { summary: 'Validate a bundle for each cluster of the runtime', flags: vetFlags, run: runVet },
  build: { summary: 'Build the Kubernetes objects of every instance for each cluster', flags: buildFlags, run: runBuild },
  diff: { summary: 'Show what would change on each cluster (exit 0 in sync, 1 drift, 2 failure)', flags: fleetFlagsFor('diff'), run: runDiff },
  apply: { summary: 'Apply the bundle cluster by cluster in runtime order', flags: fleetFlagsFor('apply'), run: runApply },
  status: { summary: "Show the bundle's instances and their objects on each cluster", flags: fleetFlagsFor('status'), run: runStatus },
  delete: { summary: "Delete the bundle's instances from each cluster", flags: fleetFlagsFor('delete'), run: runDelete },
};

function usage(): string {
  const lines = ['Usage: timoni-fleet <command> -f bundle.cue [-r runtime.cue] [flags]', '', 'Commands:'];
  for (const [name, command] of Object.entries(commands)) lines.push(`  ${name.padEnd(10)} ${command.summary}`);
  lines.push('', 'Run `timoni-fleet <command> --help` for its flags.');
  return `${lines.join('\n')}\n`;
}

export function reportError(error: unknown, io: CommandIO): void {
  const message = error instanceof Error ? error.message : String(error);
  io.stderr(`✗ ${message}\n`);
  if (io.env.GITHUB_ACTIONS === 'true') io.stdout(errorAnnotations(error));
}

export async function runCli(argv: string[], io: CommandIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`✗ unknown command ${quote(name)}\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(`Usage: timoni-fleet ${name} [flags]\n\n${command.summary}\n\nFlags:\n${formatFlagHelp(command.flags)}\n`);
    return 0;
  }
  try {
    const args = parseArguments(rest, command.flags);
    const engine = await loadCueEngine(command.flags.some((flag) => flag.name === 'cue-memory-limit') ? { memoryLimitMiB: cueMemoryLimit(args) } : {});
    return await command.run(engine, args, io);
  } catch (error) {
    reportError(error, io);
    return error instanceof UsageError ? 2 : 1;
  }
}
