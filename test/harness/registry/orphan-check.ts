// Used by registry.test.ts: starts a registry, prints its pid and folder as JSON, then
// waits to be killed, so the test can check the registry does not outlive its parent.
import { startRegistry } from './registry.js';

const registry = await startRegistry({ auth: 'anonymous' });
process.stdout.write(`${JSON.stringify({ pid: registry.pid, url: registry.url })}\n`);
setInterval(() => undefined, 60_000);
