// `timoni-fleet build`: evaluates the bundle for each selected cluster, builds every
// instance from its module, and prints the objects as multi-document YAML (with
// `# Cluster:` and `# Instance:` comments, as `timoni bundle build` prints instances) or
// as JSON.
import { stringify } from 'yaml';
import type { CueEngine } from '../cue/index.js';
import { evaluateForClusters } from '../bundle/index.js';
import { sortForApply } from '../kube/apply-order.js';
import { kubeVersionWithoutCluster, type ObjectSet } from '../module/instance-build.js';
import { InstanceBuilds } from '../module/instance-builds.js';
import { ModuleResolver } from '../module/module-resolver.js';
import type { FlagSpec, ParsedArguments } from './arguments.js';
import { bundleFlags, readBundleInputs } from './bundle-options.js';
import type { CommandIO } from './command-io.js';

export const buildFlags: FlagSpec[] = [
  ...bundleFlags.map((flag) => (flag.name === 'output' ? { ...flag, default: 'yaml', choices: ['yaml', 'json'] } : flag)),
  { name: 'creds', kind: 'string', default: '', description: 'Registry credentials: user:password, or a token' },
];

interface BuiltCluster {
  name: string;
  group: string;
  instances: Array<{
    name: string;
    namespace: string;
    module: { url: string; version: string; digest: string; name: string };
    sets: ObjectSet[];
  }>;
}

function toYaml(object: Record<string, unknown>): string {
  return stringify(object, { sortMapEntries: true, lineWidth: 0 });
}

function renderYaml(clusters: BuiltCluster[], isDefault: boolean): string {
  const parts: string[] = [];
  for (const cluster of clusters) {
    for (const instance of cluster.instances) {
      const header = [...(isDefault ? [] : [`# Cluster: ${cluster.name}`]), `# Instance: ${instance.name}`].join('\n');
      const objects = sortForApply(instance.sets.flatMap((set) => set.objects));
      parts.push(`---\n${header}\n---\n${objects.map((o) => toYaml(o)).join('---\n')}`);
    }
  }
  return parts.join('\n');
}

export async function runBuild(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const inputs = readBundleInputs(engine, args, io.cwd, io.env);
  const output = args.strings.get('output') ?? 'yaml';
  const results = await evaluateForClusters(engine, inputs);
  const creds = args.strings.get('creds');
  const resolver = new ModuleResolver(engine, io.cwd, creds ? { credentials: creds } : {}, inputs.boundary);
  const kubeVersion = kubeVersionWithoutCluster(io.env);
  const builds = new InstanceBuilds(engine);

  const clusters: BuiltCluster[] = [];
  for (const result of results) {
    const instances: BuiltCluster['instances'] = [];
    for (const instance of result.bundle.instances) {
      const module = await resolver.resolve(instance.module);
      const built = builds.build(module, { name: instance.name, namespace: instance.namespace, values: instance.values, kubeVersion });
      instances.push({
        name: instance.name,
        namespace: instance.namespace,
        module: { url: module.url, version: module.version, digest: module.digest, name: module.name },
        sets: built.sets,
      });
    }
    clusters.push({ name: result.cluster.name, group: result.cluster.group, instances });
  }

  if (output === 'json') io.stdout(`${JSON.stringify({ clusters }, null, 2)}\n`);
  else io.stdout(renderYaml(clusters, inputs.runtime.isDefault));
  return 0;
}
