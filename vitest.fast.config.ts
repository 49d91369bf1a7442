/**
 * Test configuration of the developer's tier (`npm test`): the full run's settings (vitest.config.ts) on the
 * folders whose suites start no process and no event path: unit, handler, and in-process HTTP suites on the
 * cached synthesis (docs/testing.md "Two tiers"). A new folder joins this tier by being listed here.
 */
import { defineConfig } from 'vitest/config';
import full from './vitest.config.ts';

/** The folders of the fast tier, under test/. */
const fastFolders = [
  'unit',
  'handlers',
  'webhooks',
  'contract',
  'http',
  'hostile',
  'hygiene',
  'infra',
  'docs',
  'setup',
];

export default defineConfig({
  ...full,
  test: { ...full.test, include: fastFolders.map((folder) => `test/${folder}/**/*.test.ts`) },
});
