// The action's entry point (runs.main in action.yml): one workflow step.
import { runAction } from './action/run-action.js';

process.exitCode = await runAction({ env: process.env, cwd: process.cwd(), write: (text) => process.stdout.write(text) });
