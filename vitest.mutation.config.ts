/**
 * Test configuration of the mutation run (`npm run test:mutation`, stryker.config.mjs): the full run's settings
 * on the suites that run the service's code in the test's own process (unit, handler and webhook suites), where
 * Stryker sees which test covers which mutant; the HTTP suites run the code in the local API's workers, out of
 * its sight (docs/testing.md "Mutation testing").
 */
import { defineConfig } from 'vitest/config';
import full from './vitest.config.ts';

/** The folders under test/ whose suites run lib/ in the test's own process. */
const inProcessFolders = ['unit', 'handlers', 'webhooks'];

export default defineConfig({
  ...full,
  test: { ...full.test, include: inProcessFolders.map((folder) => `test/${folder}/**/*.test.ts`) },
});
