// `npm run fleet -- <command>`: start, inspect and stop the local fleet from a shell.
//
//   up     [--clusters N] [--dir DIR] [--name-prefix fleet] [--kwok] [--no-registry] [--contexts-per-cluster K]
//                                                             start N clusters (default 3) and an OCI registry
//                                                             holding the example module, print the env file;
//                                                             --kwok: fake nodes, workloads become ready by themselves;
//                                                             --contexts-per-cluster: K contexts per API server in the
//                                                             kubeconfig (fleet-1, fleet-1-2 ... fleet-1-K; default 1)
//   status [--dir DIR] [--json]                               what runs, and whether each API server is ready
//   down   [--dir DIR]                                        stop everything `up` started in DIR, remove its files
//
// DIR defaults to $TMPDIR/timoni-fleet. Progress goes to stderr; `up` prints the env file
// (KEY=VALUE lines, see env-file.ts) to stdout once the fleet is ready.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { fleetStatus, startFleet, stopFleet } from './fleet.js';

const usage = `usage: npm run fleet -- up [--clusters N] [--dir DIR] [--name-prefix PREFIX] [--kwok] [--no-registry] [--contexts-per-cluster K]
       npm run fleet -- status [--dir DIR] [--json]
       npm run fleet -- down [--dir DIR]
DIR defaults to ${join(tmpdir(), 'timoni-fleet')}.`;

const log = (line: string) => process.stderr.write(`fleet: ${line}\n`);

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      clusters: { type: 'string', default: '3' },
      dir: { type: 'string', default: join(tmpdir(), 'timoni-fleet') },
      'name-prefix': { type: 'string', default: 'fleet' },
      json: { type: 'boolean', default: false },
      kwok: { type: 'boolean', default: false },
      'no-registry': { type: 'boolean', default: false },
      'contexts-per-cluster': { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  if (rest.length > 0) throw new Error(`unexpected arguments: ${rest.join(' ')}\n${usage}`);
  const dir = resolve(values.dir);

  switch (command) {
    case 'up': {
      const clusters = Number(values.clusters);
      if (!/^\d+$/.test(values.clusters))
        throw new Error(`--clusters must be a whole number, got ${JSON.stringify(values.clusters)}`);
      if (!/^\d+$/.test(values['contexts-per-cluster']))
        throw new Error(
          `--contexts-per-cluster must be a whole number, got ${JSON.stringify(values['contexts-per-cluster'])}`,
        );
      const contextsPerCluster = Number(values['contexts-per-cluster']);
      const fleet = await startFleet({
        clusters,
        dir,
        namePrefix: values['name-prefix'],
        kwok: values.kwok,
        registry: !values['no-registry'],
        contextsPerCluster,
        log,
      });
      process.stdout.write(readFileSync(fleet.envPath, 'utf8'));
      log(`stop it with: npm run fleet -- down --dir ${dir}`);
      return 0;
    }
    case 'down': {
      const stopped = await stopFleet(dir);
      log(stopped ? `stopped the fleet in ${dir}` : `no fleet recorded in ${dir}; nothing to stop`);
      return 0;
    }
    case 'status': {
      const status = await fleetStatus(dir);
      if (!status) {
        if (values.json) process.stdout.write('null\n');
        else log(`no fleet recorded in ${dir}`);
        return 1;
      }
      const parts = [
        ...status.clusters.map((cluster) => ({
          headline: `${cluster.name}  context ${cluster.contextName}  ${cluster.server}  ${cluster.version || '?'}`,
          ...cluster,
        })),
        ...(status.registry
          ? [
              {
                headline: `registry  ${status.registry.url}  ${status.registry.module ? `${status.registry.module.url}:${status.registry.module.version}` : 'no module pushed'}`,
                ...status.registry,
              },
            ]
          : []),
      ];
      if (values.json) {
        process.stdout.write(`${JSON.stringify(status, null, 2)}\n`);
      } else {
        process.stdout.write(`fleet in ${dir}, KUBECONFIG=${status.description.kubeconfigPath}\n`);
        for (const part of parts) {
          process.stdout.write(`${part.headline}  ${part.ready ? 'ready' : `NOT READY: ${part.problem ?? ''}`}\n`);
          for (const component of part.components) {
            process.stdout.write(
              `  ${component.component.padEnd(24)} pid ${String(component.pid).padEnd(8)} ${component.running ? `running  ${(component.rssKiB / 1024).toFixed(0).padStart(5)} MiB` : 'STOPPED'}  ${component.logPath}\n`,
            );
          }
        }
        const totalKiB = parts.flatMap((part) => part.components).reduce((sum, component) => sum + component.rssKiB, 0);
        process.stdout.write(`resident memory of all components: ${(totalKiB / 1024).toFixed(0)} MiB\n`);
      }
      return parts.every((part) => part.ready && part.components.every((component) => component.running)) ? 0 : 1;
    }
    default:
      throw new Error(`unknown command ${JSON.stringify(command)}\n${usage}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`fleet: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
