// The binaries the registry tests need, built from the Go modules under ./go and cached by
// test/harness/support/go-binary.ts. test/harness/fleet/build.ts calls ensureBinaries before tests run.
import { ensureGoBinary, type GoBinary, type ProgressLog } from '../support/go-binary.js';

/** CNCF distribution: the reference implementation of the OCI distribution API, as Harbor runs it. */
export const registryBinary: GoBinary = {
  name: 'registry',
  version: 'v3.1.2',
  moduleDir: 'test/harness/registry/go/registry',
  packagePath: 'github.com/distribution/distribution/v3/cmd/registry',
  ldflags: ['-s', '-w', '-X github.com/distribution/distribution/v3/version.version=v3.1.2'],
  usualMinutes: 6,
};

/**
 * Writes bcrypt htpasswd files and the token issuer's key and certificate, and encodes
 * reference tarballs with Go's archive/tar (see go/helper).
 */
export const helperBinary: GoBinary = {
  name: 'registry-helper',
  version: 'v1',
  moduleDir: 'test/harness/registry/go/helper',
  packagePath: '.',
  ldflags: ['-s', '-w'],
  usualMinutes: 2,
};

export interface RegistryBinaries {
  registry: string;
  helper: string;
}

/** Returns the paths of the cached binaries, building the missing ones. */
export async function ensureBinaries(log: ProgressLog): Promise<RegistryBinaries> {
  const registry = await ensureGoBinary(registryBinary, log);
  const helper = await ensureGoBinary(helperBinary, log);
  return { registry, helper };
}
