// The Kubernetes engine's public face: what the fleet layer and the CLI use.
export { SecretRegistry, type RegisterSecret } from '../secrets.js';
export {
  loadKubeconfig,
  resolveContext,
  decodeKubeconfigText,
  KubeconfigError,
  KubeContextNotFoundError,
  type Kubeconfig,
  type KubeconfigSource,
  type ResolvedContext,
} from './kubeconfig.js';
export { connectionFor, type ClusterConnection, type ConnectionOptions } from './connection.js';
export { ExecCredentialError } from './exec-credential.js';
export { KubeClient, parseWarnings, type KubeClientOptions, type KubeRequest, type KubeWarning, type ServerVersion } from './client.js';
export { KubeApiError, KubeConnectionError } from './errors.js';
export { Discovery, NoMatchError, type RestMapping } from './discovery.js';
export { proxyFromEnvironment, bypassesProxy } from '../net/proxy-environment.js';
export { KubeCluster, openCluster, collectionPath, type OpenClusterOptions } from './cluster.js';
export {
  applyObject,
  serverSideApply,
  takeOwnership,
  hasDrifted,
  comparesStatus,
  mustRecreate,
  isOneOffPresent,
  fieldManager,
  type ApplyObjectOptions,
  type ApplyResult,
  type ApplyAction,
} from './apply.js';
export { applyStages, sortForApply, sortForDelete, compareApplyOrder, type ApplyStage } from './apply-order.js';
export { ImmutableFieldError, isImmutableError, immutableFields } from './immutable.js';
export { takeOwnershipPatch, replaceFieldManagers, takeOverManagers } from './managed-fields.js';
export { diffObject, objectDiff, wholeObjectDiff, unifiedDiff, renderYaml, type DiffObjectOptions, type ObjectDiff } from './diff.js';
export { normalizeObject, jsonEqual } from './normalize.js';
export { maskSecret, maskSecretPair, isSecret } from './mask.js';
export * from './inventory.js';
export { readInstance, listInstances, writeInstance, deleteInstance, namespaceExists, ensureNamespace } from './inventory-store.js';
export { writePrivateFile, removePrivateFiles } from './private-files.js';
export * from './object.js';
export { InstanceStepError, instanceId, type BuiltInstanceInput, type InstanceModule, type InstanceApplySet, type InstanceStep } from './instance.js';
export { applyInstance } from './instance-apply.js';
export { diffInstance } from './instance-diff.js';
export { bundleStatus, instanceStatus, type InstanceStatus } from './instance-status.js';
export { deleteBundleInstances, deleteStoredInstance, type DeletedInstance } from './instance-delete.js';
export { assertOwnership, findOwnershipConflicts, OwnershipConflictError } from './ownership.js';
export { waitForReady, waitForDeletion, type ReadinessCheck } from './wait.js';
export { computeStatus } from './kstatus.js';
