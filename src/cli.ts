#!/usr/bin/env node
// The command-line entry point, `timoni-fleet`.
import { processIO } from './cli/command-io.js';
import { runCli } from './cli/run.js';

process.exitCode = await runCli(process.argv.slice(2), processIO());
