// The binaries of the local fleet, built from the Go modules beside this file and cached
// by test/harness/support/go-binary.ts. `npx tsx test/harness/fleet/build.ts` builds whatever is missing.
import { ensureGoBinary, type GoBinary, type ProgressLog } from '../support/go-binary.js';
import { etcdVersion, kubernetesBuildDate, kubernetesVersion, pkiVersion } from './versions.js';

export interface FleetBinaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  pki: string;
}

function kubernetesLdflags(): string[] {
  const match = /^v(\d+)\.(\d+)\.\d+$/.exec(kubernetesVersion);
  if (!match) throw new Error(`kubernetesVersion ${kubernetesVersion} is not of the form vX.Y.Z`);
  const pkg = 'k8s.io/component-base/version';
  return [
    '-s',
    '-w',
    `-X ${pkg}.gitVersion=${kubernetesVersion}`,
    `-X ${pkg}.gitMajor=${match[1]}`,
    `-X ${pkg}.gitMinor=${match[2]}`,
    // The release tag's commit is not known to the module proxy; a fixed marker says so.
    `-X ${pkg}.gitCommit=0000000000000000000000000000000000000000`,
    `-X ${pkg}.gitTreeState=clean`,
    `-X ${pkg}.buildDate=${kubernetesBuildDate}`,
  ];
}

function kubernetesBinary(name: string, usualMinutes: number): GoBinary {
  return {
    name,
    version: kubernetesVersion,
    moduleDir: 'test/harness/fleet/k8s',
    packagePath: `k8s.io/kubernetes/cmd/${name}`,
    ldflags: kubernetesLdflags(),
    usualMinutes,
  };
}

/** kwok release built from sigs.k8s.io/kwok (test/harness/fleet/kwok/go.mod). */
export const kwokVersion = 'v0.8.0';

export const binaryDefinitions = {
  pki: {
    name: 'fleet-pki',
    version: pkiVersion,
    moduleDir: 'test/harness/fleet/pki',
    packagePath: '.',
    ldflags: ['-s', '-w'],
    usualMinutes: 1,
  },
  etcd: {
    name: 'etcd',
    version: etcdVersion,
    moduleDir: 'test/harness/fleet/etcd',
    packagePath: '.',
    ldflags: ['-s', '-w'],
    usualMinutes: 4,
  },
  kubeApiserver: kubernetesBinary('kube-apiserver', 15),
  kubeControllerManager: kubernetesBinary('kube-controller-manager', 8),
} satisfies Record<keyof FleetBinaries, GoBinary>;

/** Only used by fleets with fake nodes (`kwok: true`). */
export const kwokBinaryDefinitions = {
  kubeScheduler: kubernetesBinary('kube-scheduler', 6),
  kwok: {
    name: 'kwok',
    version: kwokVersion,
    moduleDir: 'test/harness/fleet/kwok',
    packagePath: 'sigs.k8s.io/kwok/cmd/kwok',
    ldflags: ['-s', '-w'],
    usualMinutes: 8,
  },
  kwokStages: {
    name: 'kwok-stages',
    version: kwokVersion,
    moduleDir: 'test/harness/fleet/kwok',
    packagePath: './stages',
    ldflags: ['-s', '-w'],
    usualMinutes: 1,
  },
} satisfies Record<string, GoBinary>;

export interface KwokBinaries {
  kubeScheduler: string;
  kwok: string;
  /** Prints kwok's default stages (test/harness/fleet/kwok/stages). */
  kwokStages: string;
}

let pendingKwok: Promise<KwokBinaries> | undefined;

/** Builds (or finds) kube-scheduler and kwok, for fleets whose workloads run on fake nodes. */
export function ensureKwokBinaries(log: ProgressLog): Promise<KwokBinaries> {
  pendingKwok ??= (async () => ({
    kubeScheduler: await ensureGoBinary(kwokBinaryDefinitions.kubeScheduler, log),
    kwok: await ensureGoBinary(kwokBinaryDefinitions.kwok, log),
    kwokStages: await ensureGoBinary(kwokBinaryDefinitions.kwokStages, log),
  }))();
  pendingKwok.catch(() => {
    pendingKwok = undefined;
  });
  return pendingKwok;
}

let pending: Promise<FleetBinaries> | undefined;

/**
 * Builds (or finds in the cache) every binary of the fleet, one after the other: the
 * Kubernetes binaries share most packages, so the second reuses the first's Go build cache,
 * and the machine's cores are shared with other builds. The binaries of fleets with fake
 * nodes (kube-scheduler, kwok) are built too, last, so that their test finds them ready.
 */
export function ensureBinaries(log: ProgressLog): Promise<FleetBinaries> {
  pending ??= (async () => {
    const binaries = {
      pki: await ensureGoBinary(binaryDefinitions.pki, log),
      etcd: await ensureGoBinary(binaryDefinitions.etcd, log),
      kubeApiserver: await ensureGoBinary(binaryDefinitions.kubeApiserver, log),
      kubeControllerManager: await ensureGoBinary(binaryDefinitions.kubeControllerManager, log),
    };
    await ensureKwokBinaries(log);
    return binaries;
  })();
  pending.catch(() => {
    pending = undefined;
  });
  return pending;
}
