/**
 * Test configuration of the full run (`npm run test:all`, and `npx vitest run <file>`): every suite of both
 * packages, the service's under test/ and the local AWS's under local-aws/test/ (docs/testing.md "Two tiers").
 * The suites that serve or read the stack synthesize it on first use, once per set of inputs
 * (test/support/synthesized-assembly.ts); the others start at once. Each test file runs in its own process
 * (`forks`), so a file's local service, table names and environment never leak into another. Logs of the
 * functions are silenced unless a test turns them on (the log-hygiene test captures them itself).
 * vitest.fast.config.ts is the developer's tier (`npm test`).
 */
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Folders under test/ whose suites take the longest: each starts servers, tools or a browser and waits on them. */
const processFolders = ['browser', 'faults', 'local', 'tools'];

/**
 * vitest's order (the last run's durations, longest first, else file size) with the suites of
 * {@link processFolders} first: a fresh clone keeps no durations, and by size alone a long process suite in a
 * short file starts last and ends the run alone.
 */
class ProcessSuitesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = ({ moduleId }: TestSpecification) =>
      processFolders.some((folder) => moduleId.includes(`/test/${folder}/`)) ? 0 : 1;
    return (await super.sort(files)).toSorted((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'local-aws/test/**/*.test.ts'],
    pool: 'forks',
    // One file more than the cores: most suites wait on processes, timers and sockets (vitest's default, one
    // less than the cores, runs files one at a time on 2 cores).
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: ProcessSuitesFirst },
    testTimeout: 120_000,
    hookTimeout: 120_000,
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true', AWS_REGION: 'us-east-1' },
  },
});
