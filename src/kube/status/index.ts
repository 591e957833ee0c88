// kube/status, the face: readiness as kstatus computes it, and waiting for objects to be ready or gone.
export { computeStatus } from './kstatus.js';
export {
  objectsToWaitFor,
  type ReadinessCheck,
  readObjectStatus,
  WaitError,
  waitForDeletion,
  waitForReady,
} from './wait.js';
