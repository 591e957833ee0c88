// The action's entry point (runs.main in action.yml): one workflow step. The process ends
// as soon as the run is published and its output flushed: work still in flight after the
// run's deadline (a request to a cluster that never answers) must not keep the step alive,
// nor must the CUE engine's Go runtime timers.
import { runAction } from './action/run.js';

const code = await runAction({ env: process.env, cwd: process.cwd(), write: (text) => process.stdout.write(text) });
process.stdout.write('', () => process.exit(code));
