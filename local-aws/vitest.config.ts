/**
 * Test configuration of the local AWS's own tier (`npm test --workspace local-aws`): its fidelity, durability
 * and process suites under test/, each file in its own process (`forks`) so that a file's endpoints and
 * environment never leak into another. The repository's full run includes these suites too.
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { AWS_REGION: 'us-east-1' },
  },
});
