// The key material of one cluster, written by the fleet-pki helper (test/harness/fleet/pki).
import { execFile } from 'node:child_process';
import { join } from 'node:path';

/** Files written by fleet-pki into a cluster's `pki` folder. */
export interface ClusterPki {
  dir: string;
  caCert: string;
  apiserverCert: string;
  apiserverKey: string;
  /** fleet-admin, in group system:masters: the kubeconfig's user. */
  adminCert: string;
  adminKey: string;
  controllerManagerCert: string;
  controllerManagerKey: string;
  schedulerCert: string;
  schedulerKey: string;
  /** fleet-user: authenticated, in no group, bound to no role (for RBAC tests). */
  userCert: string;
  userKey: string;
  serviceAccountKey: string;
  serviceAccountPublicKey: string;
}

export function clusterPkiPaths(dir: string): ClusterPki {
  const file = (name: string) => join(dir, name);
  return {
    dir,
    caCert: file('ca.crt'),
    apiserverCert: file('apiserver.crt'),
    apiserverKey: file('apiserver.key'),
    adminCert: file('admin.crt'),
    adminKey: file('admin.key'),
    controllerManagerCert: file('controller-manager.crt'),
    controllerManagerKey: file('controller-manager.key'),
    schedulerCert: file('scheduler.crt'),
    schedulerKey: file('scheduler.key'),
    userCert: file('user.crt'),
    userKey: file('user.key'),
    serviceAccountKey: file('service-account.key'),
    serviceAccountPublicKey: file('service-account.pub'),
  };
}

/** Generates a fresh CA, certificates and service-account keys for one cluster. */
export async function generateClusterPki(pkiBinary: string, dir: string, serviceIp: string): Promise<ClusterPki> {
  await new Promise<void>((resolve, reject) => {
    execFile(pkiBinary, ['-dir', dir, '-service-ip', serviceIp], (error, _stdout, stderr) => {
      if (error)
        reject(
          new Error(`generating certificates in ${dir} with ${pkiBinary} failed: ${stderr.trim() || error.message}`),
        );
      else resolve();
    });
  });
  return clusterPkiPaths(dir);
}
