// Run by pull-proxy.test.ts in a child process, so that the environment is set as a user
// sets it before Node starts (HTTPS_PROXY, NO_PROXY, NODE_EXTRA_CA_CERTS to trust a test
// registry's certificate): pulls one module and prints what it got as JSON.
//   node --import tsx proxied-pull-child.ts '{"url":...,"version":...,"cacheDir":...}'
import { join } from 'node:path';
import { OciError, pullModule } from '../../../src/module/oci/index.js';
import { fastRetry, readTree } from './registry-fixtures.js';

interface ChildRequest {
  url: string;
  version: string;
  cacheDir: string;
}

const request = JSON.parse(process.argv[2] ?? '{}') as ChildRequest;
try {
  const module = await pullModule(request.url, request.version, undefined, {
    env: { PATH: process.env.PATH },
    dockerConfigDir: join(request.cacheDir, 'no-docker-config'),
    retry: fastRetry,
    cacheDir: request.cacheDir,
  });
  process.stdout.write(JSON.stringify({ digest: module.digest, tree: await readTree(module.dir) }));
} catch (error) {
  process.stdout.write(
    JSON.stringify({ error: error instanceof OciError ? `${error.code}: ${error.message}` : String(error) }),
  );
}
