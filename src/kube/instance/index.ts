// kube/instance, the face: one Timoni instance on one cluster, as Timoni's `internal/runtime` handles it.
// Diff, apply (with prune and the instance record written last), delete, status; Timoni's inventory Secret
// byte for byte and its storage; ownership between instances; instances the bundle no longer lists;
// the history of each instance (a Secret of our own beside Timoni's); the objects a bundle may not apply
// (the records read back) and the checks of those records when read.
export { applyInstance, InstanceCancelledError } from './instance-apply.js';
export { deleteBundleInstances, deleteStoredInstance, type DeletedInstance } from './instance-delete.js';
export {
  appendHistory,
  currentRevision,
  type HistoryEntry,
  type HistoryProvenance,
  type HistoryReviewed,
  readHistory,
  readLiveRecordText,
  UntrustedHistoryError,
} from './history-store.js';
export { diffInstance } from './instance-diff.js';
export { bundleStatus, instanceStatus, type InstanceStatus } from './instance-status.js';
export { type BuiltInstanceInput, InstanceStepError } from './instance.js';
export { type InstanceRecord } from './inventory.js';
export { ForgedInstanceRecordError, listInstances, readInstance } from './inventory-store.js';
export { bundleNameLabel, type DecodedInstanceSecret, inventoryEntryId } from './inventory.js';
export { assertOwnership } from './ownership.js';
export {
  deletedCount,
  deleteRemovedInstance,
  diffRemovedInstance,
  findRemovedInstances,
  type RemovedInstanceScan,
} from './unlisted-instances.js';
export {
  type InstanceSnapshot,
  snapshotData,
  snapshotInstance,
  snapshotRecordText,
  writeBackInstance,
} from './instance-restore.js';
export {
  isReservedRefusal,
  refusedChange,
  ReservedObjectError,
  type ReservedObjectRules,
  reservedObjects,
} from './reserved-objects.js';
