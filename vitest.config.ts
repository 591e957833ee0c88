import { defineConfig } from 'vitest/config';

// One run holds all three tiers (unit, integration, end-to-end). Integration and
// end-to-end tests reach the local fleet through test/harness/fleet/global-setup.ts, which
// starts it once per run and stops it at exit (`inject('fleet')` describes it).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./test/harness/fleet/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    reporters: ['default', './test/harness/support/closing-line-reporter.ts'],
  },
});
