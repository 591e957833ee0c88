// `timoni-fleet build`: evaluates the bundle for each selected cluster, builds every
// instance from its module, and prints the objects as multi-document YAML (with
// `# Cluster:` and `# Instance:` comments, as `timoni bundle build` prints instances;
// each object exactly as sigs.k8s.io/yaml prints it, see timoni-yaml.ts) or as JSON.
// Runtime value queries are read from the clusters (query-access.ts); values read from
// Secrets are redacted; `--mask-secrets` masks Secret data as Timoni v0.33 does.
import type { CueEngine } from '../cue/index.js';
import { sortForApply } from '../kube/apply-order.js';
import { maskSecret } from '../kube/mask.js';
import { kubeVersionWithoutCluster, type ObjectSet } from '../module/instance-build.js';
import { InstanceBuilds } from '../module/instance-builds.js';
import { ModuleResolver } from '../module/module-resolver.js';
import type { FlagSpec, ParsedArguments } from './arguments.js';
import { bundleFlags, readBundleInputs } from './bundle-options.js';
import type { CommandIO } from './command-io.js';
import { evaluateWithQueries, redactStrings } from './query-access.js';
import { TimoniYamlPrinter } from './timoni-yaml.js';

export const buildFlags: FlagSpec[] = [
  ...bundleFlags.map((flag) => (flag.name === 'output' ? { ...flag, default: 'yaml', choices: ['yaml', 'json'] } : flag)),
  { name: 'creds', kind: 'string', default: '', description: 'Registry credentials: user:password, or a token' },
  { name: 'mask-secrets', kind: 'boolean', description: 'Print the values of Kubernetes Secrets as *** (as timoni build --mask-secrets)' },
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

function renderYaml(clusters: BuiltCluster[], isDefault: boolean): string {
  const printer = new TimoniYamlPrinter();
  const parts: string[] = [];
  for (const cluster of clusters) {
    for (const instance of cluster.instances) {
      const header = [...(isDefault ? [] : [`# Cluster: ${cluster.name}`]), `# Instance: ${instance.name}`].join('\n');
      const objects = sortForApply(instance.sets.flatMap((set) => set.objects));
      parts.push(`---\n${header}\n---\n${printer.marshalObjects(objects)}`);
    }
  }
  return parts.join('\n');
}

/** Each object as printed: registered secret values redacted, Secret data masked when asked. */
function printedSets(sets: ObjectSet[], redact: (text: string) => string, maskSecrets: boolean): ObjectSet[] {
  return sets.map((set) => ({
    ...set,
    objects: set.objects.map((object) => {
      const redacted = redactStrings(object, redact) as typeof object;
      return maskSecrets ? maskSecret(redacted) : redacted;
    }),
  }));
}

export async function runBuild(engine: CueEngine, args: ParsedArguments, io: CommandIO): Promise<number> {
  const inputs = readBundleInputs(engine, args, io.cwd, io.env);
  const output = args.strings.get('output') ?? 'yaml';
  const maskSecrets = args.booleans.get('mask-secrets') === true;
  const { results, access } = await evaluateWithQueries(engine, inputs, args, io);
  const creds = args.strings.get('creds');
  const resolver = new ModuleResolver(engine, io.cwd, creds ? { credentials: creds } : {}, inputs.boundary);
  const kubeVersion = kubeVersionWithoutCluster(io.env);
  const builds = new InstanceBuilds(engine);

  const clusters: BuiltCluster[] = [];
  for (const result of results) {
    const instances: BuiltCluster['instances'] = [];
    for (const instance of result.bundle.instances) {
      const module = await resolver.resolve(instance.module);
      const built = builds.build(module, { name: instance.name, namespace: instance.namespace, values: instance.valuesCue, kubeVersion });
      instances.push({
        name: instance.name,
        namespace: instance.namespace,
        module: { url: module.url, version: module.version, digest: module.digest, name: module.name },
        sets: printedSets(built.sets, access.redact, maskSecrets),
      });
    }
    clusters.push({ name: result.cluster.name, group: result.cluster.group, instances });
  }

  if (output === 'json') io.stdout(`${JSON.stringify({ clusters }, null, 2)}\n`);
  else io.stdout(renderYaml(clusters, inputs.runtime.isDefault));
  return 0;
}
