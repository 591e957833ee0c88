// One run of the action: read the inputs, decide from the event whether to diff or apply,
// evaluate the bundle for every selected cluster, diff or roll out, then publish outputs,
// the job summary and the pull request comment. Returns the process exit code: 1 when
// any cluster failed or the inputs are wrong; a diff with changes is not a failure.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadRuntime, readCueModuleFiles, readSourceFiles } from '../bundle/index.js';
import { loadCueEngine } from '../cue/index.js';
import { planFleet } from '../fleet/plan.js';
import { rollOutFleet } from '../fleet/rollout.js';
import { defaultFleetOptions, type FleetRun } from '../fleet/fleet-run.js';
import { readActionConfig, type ActionConfig } from '../github/action-config.js';
import { ActionLog } from '../github/action-log.js';
import type { Environment } from '../github/action-inputs.js';
import { errorAnnotations } from '../github/error-annotations.js';
import { planRun, readRunContext } from '../github/event-context.js';
import { setOutput } from '../github/file-commands.js';
import { formatAnnotation, formatMask } from '../github/workflow-commands.js';
import { loadKubeconfig, SecretRegistry } from '../kube/index.js';
import { ModuleResolver } from '../module/module-resolver.js';
import { publishResults } from './publish-results.js';

export interface ActionIO {
  env: Environment;
  cwd: string;
  write(text: string): void;
}

function kubeconfigTexts(config: ActionConfig, env: Environment): string[] {
  if (config.kubeconfigs.length > 0) return config.kubeconfigs;
  const paths = (env.KUBECONFIG ?? join(homedir(), '.kube', 'config')).split(':').filter(Boolean);
  return paths.map((path) => readFileSync(path, 'utf8'));
}

export async function runAction(io: ActionIO): Promise<number> {
  const maskedValues: string[] = [];
  const secrets = new SecretRegistry((value) => {
    maskedValues.push(value);
    io.write(formatMask(value));
  });
  const log = new ActionLog(io.write, (text) => secrets.redact(text));

  let config: ActionConfig;
  try {
    config = readActionConfig(io.env, (value) => secrets.register(value));
  } catch (error) {
    io.write(errorAnnotations(error, 'timoni-fleet input'));
    return 1;
  }

  const context = readRunContext(io.env);
  const plan = planRun(context, { mode: config.mode, clusterGroup: config.runtimeGroup, cluster: config.runtimeCluster });
  if (plan.mode === 'skip') {
    log.line(`nothing to do: ${plan.reason}`);
    setOutput(io.env, 'has-changes', 'false');
    return 0;
  }
  log.line(`timoni-fleet: ${plan.mode} (${plan.reason}), clusters: group ${plan.clusterGroup}, cluster ${plan.cluster}`);

  try {
    const cwd = resolve(io.env.GITHUB_WORKSPACE ?? io.cwd, config.workingDirectory);
    const engine = await loadCueEngine();
    const moduleFiles = readCueModuleFiles(cwd);
    const bundleFiles = readSourceFiles(config.bundleFiles, cwd);
    const runtime = loadRuntime(engine, readSourceFiles(config.runtimeFiles, cwd), moduleFiles, '');
    const kubeconfig = loadKubeconfig(kubeconfigTexts(config, io.env), secrets);
    const resolver = new ModuleResolver(engine, cwd, {
      ...(config.registryCreds ? { credentials: config.registryCreds } : {}),
      secrets: (value: string) => secrets.register(value),
    });
    const run: FleetRun = {
      engine,
      evaluation: { bundleFiles, moduleFiles, runtime, ...(config.runtimeFromEnv ? { environment: { ...io.env } } : {}) },
      selector: { group: plan.clusterGroup, cluster: plan.cluster },
      kubeconfig,
      secrets,
      resolver,
      options: {
        ...defaultFleetOptions,
        force: config.force,
        overwriteOwnership: config.overwriteOwnership,
        wait: config.wait,
        timeoutMs: config.timeoutMs,
        prune: config.prune,
        concurrency: config.concurrency,
      },
      log,
      timings: {},
      onClusterError: (_cluster, error) => io.write(errorAnnotations(error)),
    };
    const changeSet = plan.mode === 'diff' ? await planFleet(run) : await rollOutFleet(run);
    io.write(`::debug::timoni-fleet timings: first cluster request ${Math.round(run.timings?.firstClusterRequestMs ?? -1)} ms after start, ${plan.mode} done ${Math.round(performance.now())} ms after start\n`);
    await publishResults({
      env: io.env,
      changeSet,
      context,
      plan,
      secrets: maskedValues,
      githubToken: config.githubToken,
      comment: config.comment,
      log: (line) => log.line(line),
    });
    const failed = changeSet.clusters.filter((c) => c.status === 'failed');
    for (const cluster of failed) {
      io.write(formatAnnotation({ level: 'error', title: `cluster ${cluster.name} failed`, message: secrets.redact(`${cluster.error?.step ?? 'run'}: ${cluster.error?.message ?? 'failed'}`) }));
    }
    return failed.length > 0 ? 1 : 0;
  } catch (error) {
    io.write(secrets.redact(errorAnnotations(error)));
    return 1;
  }
}
