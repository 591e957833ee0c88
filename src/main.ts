// The action's entry point (runs.main in action.yml): one workflow step. The process ends
// as soon as the run is published: work still in flight after the run's deadline (a request
// to a cluster that never answers) must not keep the step alive.
import { runAction } from './action/run-action.js';

process.exit(await runAction({ env: process.env, cwd: process.cwd(), write: (text) => process.stdout.write(text) }));
