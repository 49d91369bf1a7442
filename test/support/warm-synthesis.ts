/**
 * `npm test` and `npm run test:all` run this before Vitest: the synthesized stack is cached (or made) once,
 * outside any test's time limit, so no suite's hook waits on a synthesis (docs/testing.md "One synthesis,
 * cached"). A single file run with `npx vitest run` synthesizes on first use instead.
 */
import { assemblyDir } from './synthesized-assembly.ts';

assemblyDir();
