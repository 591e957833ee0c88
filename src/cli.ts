#!/usr/bin/env node
// The command-line entry point, `timoni-fleet`. The process ends as soon as the command is
// done and its output flushed: the CUE engine's Go runtime keeps timers of its own (its
// garbage collector's background work) that would otherwise hold the process for about a
// second after the last result.
// SIGINT and SIGTERM: an apply stops cleanly on the first one and exits 130; a second one,
// or one during any other command, stops the process at once (cancellation.ts).
import { writeSync } from 'node:fs';
import { escapeLogText } from './workflow-commands.js';
import { CANCELLED_EXIT_CODE, cancellationOnSignals } from './cancellation.js';
import { processIO } from './cli/io.js';
import { runCli } from './cli/dispatch.js';

const io = processIO();
const cancellation = cancellationOnSignals({
  notice: (text) => io.stderr(`⏹ ${text}\n`),
  stopNow: (text) => {
    writeSync(2, escapeLogText(`⏹ ${text}\n`));
    process.exit(CANCELLED_EXIT_CODE);
  },
});
const code = await runCli(process.argv.slice(2), { ...io, cancellation });
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
