// The shape the Kubernetes engine applies or diffs: one built instance of the bundle.
import type { BuiltInstanceInput } from '../kube/instance.js';
import type { ClusterInstanceBuild } from './cluster-build.js';
import type { ModuleInfo } from '../changeset.js';

export function instanceInput(bundle: string, instance: ClusterInstanceBuild): BuiltInstanceInput {
  return {
    bundle,
    name: instance.name,
    namespace: instance.namespace,
    module: {
      url: instance.module.url,
      version: instance.module.version,
      digest: instance.module.digest,
      name: instance.module.name,
      ...(instance.module.repository ? { repository: instance.module.repository } : {}),
      ...(instance.module.annotations ? { annotations: instance.module.annotations } : {}),
    },
    sets: instance.built.sets,
    valuesSource: instance.built.values,
    images: instance.built.images,
  };
}

export function moduleInfo(instance: ClusterInstanceBuild): ModuleInfo {
  return { url: instance.module.url, version: instance.module.version, digest: instance.module.digest };
}
