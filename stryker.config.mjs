/**
 * Mutation testing of lib/ (`npm run test:mutation`): Stryker changes the code one mutant at a time and runs
 * the developer tier's tests related to it (vitest.fast.config.ts); a mutant no test kills is an assertion
 * missing. A measurement, not part of `npm test` or CI (docs/testing.md "Mutation testing").
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: true },
  mutate: ['lib/{inventory,orders,pets,http,auth,events,webhooks}/**/*.ts'],
  coverageAnalysis: 'perTest',
  // A static mutant (a module-level value) needs its modules loaded again for each run; this runner reports it
  // as survived even when its tests fail (stryker-js#6209), so static mutants are left out of the score.
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'html'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  // Stryker rewrites tsconfig.json's paths for its sandbox with TypeScript's JavaScript API, which TypeScript 7
  // no longer has; the sandbox keeps the project's layout, so the file needs no rewriting: none is named.
  tsconfigFile: '',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
