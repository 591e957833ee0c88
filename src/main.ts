// The action's entry point (runs.main in action.yml): one workflow step. The process ends
// as soon as the run is published and its output flushed: work still in flight after the
// run's deadline (a request to a cluster that never answers) must not keep the step alive,
// nor must the CUE engine's Go runtime timers.
// SIGINT and SIGTERM (a cancelled workflow run): an apply stops cleanly on the first one,
// publishes and exits 130; a second one, or one in any other mode, stops at once.
import { writeSync } from 'node:fs';
import { runAction } from './action/run-action.js';
import { escapeLogText, formatAnnotation } from './workflow-commands.js';
import { CANCELLED_EXIT_CODE, cancellationOnSignals } from './cancellation.js';

const cancellation = cancellationOnSignals({
  notice: (text) => process.stdout.write(`${escapeLogText(text)}\n`),
  stopNow: (text) => {
    writeSync(1, formatAnnotation({ level: 'error', title: 'timoni-fleet cancelled', message: text }));
    process.exit(CANCELLED_EXIT_CODE);
  },
});
const code = await runAction({
  env: process.env,
  cwd: process.cwd(),
  write: (text) => process.stdout.write(text),
  cancellation,
});
process.stdout.write('', () => process.exit(code));
