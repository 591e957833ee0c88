#!/usr/bin/env node
// The command-line entry point, `timoni-fleet`. The process ends as soon as the command is
// done and its output flushed: the CUE engine's Go runtime keeps timers of its own (its
// garbage collector's background work) that would otherwise hold the process for about a
// second after the last result.
import { processIO } from './cli/io.js';
import { runCli } from './cli/run.js';

const code = await runCli(process.argv.slice(2), processIO());
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
