// Versions of the components of the local fleet. The Go modules under test/harness/fleet/ pin the
// same versions in their go.mod files; change both together.

/** Kubernetes release built from k8s.io/kubernetes (test/harness/fleet/k8s/go.mod). */
export const kubernetesVersion = 'v1.36.3';

/** etcd release built from go.etcd.io/etcd/server/v3 (test/harness/fleet/etcd/go.mod). */
export const etcdVersion = 'v3.6.16';

/** Version of the small certificate helper in test/harness/fleet/pki (only its sources matter). */
export const pkiVersion = 'v1';

/** Fixed build date reported by `/version`, so that rebuilds are reproducible. */
export const kubernetesBuildDate = '2026-01-01T00:00:00Z';
