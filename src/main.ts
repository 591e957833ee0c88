// The action's entry point: wires the layers together for one workflow run.
process.stderr.write('timoni-fleet: the action is not implemented yet\n');
process.exitCode = 1;
