// kube/connect, the face: reaching a cluster. Kubeconfig contexts and their credentials (exec plugins
// included), the HTTP client with its retries and time limits, discovery (REST mappings), the cluster
// handle (`openCluster`), and the check that a context reaches the runtime cluster it is named for.
export {
  ClusterIdentityError,
  DEFAULT_IDENTITY_RECORD,
  establishIdentity,
  IDENTITY_FIELD_MANAGER,
  IDENTITY_LABELS,
  IDENTITY_MODES,
  IDENTITY_NAMESPACE,
  type IdentityMode,
  type IdentityRecord,
  parseRepinList,
  readClusterUid,
  readIdentityRecord,
  readIdentityRecordChecked,
  type ReadIdentityRecord,
  repinsCluster,
} from './cluster-identity.js';
export { type KubeCluster, openCluster, type OpenClusterOptions } from './cluster.js';
export { NoMatchError } from './discovery.js';
export { KubeApiError } from './errors.js';
export { type Kubeconfig, type KubeconfigSource, loadKubeconfig } from './kubeconfig.js';
export { withRequestDeadline } from './request-retry.js';
