// kube/ssa, the face: server-side apply of one object, as fluxcd/pkg `ssa` does it. Apply and dry-run,
// take-over of kubectl/Helm fields, immutable fields (recreate), Timoni's apply order and stages, and what
// a diff shows (normalised, Secrets masked, the unified diff).
export { applyStages, sortForApply, sortForDelete } from './apply-order.js';
export { applyObject, type ApplyResult, comparesStatus, fieldManager, serverSideApply } from './apply.js';
export { diffObject, objectDiff, type ObjectDiff, recreateDiff, wholeObjectDiff } from './diff.js';
export { isImmutableError } from './immutable.js';
export { isSecret, maskSecret } from './mask.js';
export { normalizeObject } from './normalize.js';
