// Dispatches `timoni-fleet <command> [flags]` to its command (and `version`), maps outcomes to exit codes,
// and turns a failed command into what the user reads: the message on stderr, every CUE
// diagnostic with its file, line and field, and, inside GitHub Actions, an annotation on
// the file and line for each.
import { loadCueEngine, type CueEngine } from '../cue/index.js';
import { errorAnnotations } from '../error-annotations.js';
import { quote } from '../display-text.js';
import { formatFlagHelp, nearestName, parseArguments, type FlagSpec, type ParsedArguments } from './arguments.js';
import { runApply, runBuild, runDelete, runDiff, runRollback, runStatus, runVet } from './commands.js';
import { maskedIO, type CommandIO } from './io.js';
import { SecretRegistry } from '../secrets.js';
import { buildFlags, cueMemoryLimit, fleetFlagsFor, vetFlags } from './options.js';
import { runHistory } from './history-command.js';
import { printVersion } from './version.js';

interface Command {
  summary: string;
  flags: FlagSpec[];
  /**
   * The exit code of a failure to do the job (a bad flag, a missing file, a bundle or runtime
   * error, a cluster not reached or refused): 2 for the commands that reach clusters, whose 1
   * means drift (diff) or not all deployed (status); 1 for vet and build, as `timoni bundle
   * vet|build` (Timoni exits 1 on every error, flag errors included).
   */
  failureCode: 1 | 2;
  /**
   * A fleet command: what it prints (both streams, errors included) is masked with the run's
   * secrets (io.ts maskedIO). vet and build redact what they print themselves.
   */
  masked?: true;
  run(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number>;
}

const commands: Record<string, Command> = {
  vet: {
    summary: 'Validate a bundle for each cluster of the runtime (exit 0 valid, 1 failure)',
    flags: vetFlags,
    failureCode: 1,
    run: runVet,
  },
  build: {
    summary: 'Build the Kubernetes objects of every instance for each cluster (exit 0 built, 1 failure)',
    flags: buildFlags,
    failureCode: 1,
    run: runBuild,
  },
  diff: {
    summary: 'Show what would change on each cluster (exit 0 in sync, 1 drift, 2 failure)',
    flags: fleetFlagsFor('diff'),
    failureCode: 2,
    masked: true,
    run: runDiff,
  },
  apply: {
    summary: 'Apply the bundle cluster by cluster in runtime order (exit 0 applied, 2 failure)',
    flags: fleetFlagsFor('apply'),
    failureCode: 2,
    masked: true,
    run: runApply,
  },
  status: {
    summary:
      "Show the bundle's instances and their objects on each cluster (exit 0 all deployed, 1 not all deployed, 2 failure)",
    flags: fleetFlagsFor('status'),
    failureCode: 2,
    masked: true,
    run: runStatus,
  },
  delete: {
    summary: "Delete the bundle's instances from each cluster (exit 0 deleted, 2 failure)",
    flags: fleetFlagsFor('delete'),
    failureCode: 2,
    masked: true,
    run: runDelete,
  },
  history: {
    summary: 'List the revisions applied of each instance on each cluster, newest first (exit 0 read, 2 failure)',
    flags: fleetFlagsFor('history'),
    failureCode: 2,
    masked: true,
    run: runHistory,
  },
  rollback: {
    summary:
      "Put each instance back to a revision of its history (default: its previous one), cluster by cluster in runtime order (exit 0 rolled back, 2 failure; --dry-run: diff's)",
    flags: fleetFlagsFor('rollback'),
    failureCode: 2,
    masked: true,
    run: runRollback,
  },
};

function usage(): string {
  const lines = ['Usage: timoni-fleet <command> -f bundle.cue [-r runtime.cue] [flags]', '', 'Commands:'];
  for (const [name, command] of Object.entries(commands)) lines.push(`  ${name.padEnd(10)} ${command.summary}`);
  lines.push(
    `  ${'version'.padEnd(10)} Print the version of timoni-fleet, of CUE and the CUE engine in use (also --version)`,
  );
  lines.push('', 'Run `timoni-fleet <command> --help` for its flags.');
  return `${lines.join('\n')}\n`;
}

/** The flags that `command` does not take, each with the commands that do. */
function othersFlags(command: string): Map<string, string[]> {
  const own = new Set(commands[command]?.flags.map((flag) => flag.name));
  const others = new Map<string, string[]>();
  for (const [name, { flags }] of Object.entries(commands)) {
    for (const flag of flags) if (!own.has(flag.name)) others.set(flag.name, [...(others.get(flag.name) ?? []), name]);
  }
  return others;
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
  if (name === 'version' || name === '--version') return printVersion(rest, io);
  const command = commands[name];
  if (!command) {
    const nearest = nearestName(name, [...Object.keys(commands), 'version']);
    io.stderr(`✗ unknown command ${quote(name)}${nearest ? `: did you mean ${nearest}?` : ''}\n${usage()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.stdout(
      `Usage: timoni-fleet ${name} [flags]\n\n${command.summary}\n\nFlags:\n${formatFlagHelp(command.flags)}\n`,
    );
    return 0;
  }
  const commandIO = command.masked ? maskedIO(io, new SecretRegistry()) : io;
  try {
    const args = parseArguments(rest, command.flags, { command: name, otherCommandsFlags: othersFlags(name) });
    const engine = await loadCueEngine(
      command.flags.some((flag) => flag.name === 'cue-memory-limit') ? { memoryLimitMiB: cueMemoryLimit(args) } : {},
    );
    return await command.run(engine, args, commandIO);
  } catch (error) {
    reportError(error, commandIO);
    return command.failureCode;
  }
}
