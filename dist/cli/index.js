var __webpack_exports__ = {};
// The command-line entry point, `timoni-fleet`.
process.stderr.write('timoni-fleet: no command is implemented yet\n');
process.exitCode = 2;


