/**
 * @module cfn-lint for the template tests (docs/testing.md "cfn-lint"): a test that needs it runs when it is on
 * PATH; in CI (`CI=true`, which `.ci/run` and GitHub Actions set) its absence fails the test, saying how to
 * install it; on a developer's machine the test is skipped with a warning that says the same.
 */
import { spawnSync } from 'node:child_process';
import { it } from 'vitest';

/** The path of `cfn-lint` on PATH, or undefined. */
const cfnLintPath: string | undefined =
  spawnSync('sh', ['-c', 'command -v cfn-lint'], { encoding: 'utf8' }).stdout.trim() || undefined;

/** What to do without cfn-lint. */
const missing =
  'cfn-lint is not on PATH: install it with `pipx install cfn-lint` or `pip install cfn-lint` (`bash .ci/run` does)';

/**
 * Registers the test `name` that runs `check` with the path of cfn-lint, within `timeoutMs`. Without cfn-lint:
 * a failing test naming the install command in CI, else a skipped test and a warning.
 */
export function itWithCfnLint(name: string, check: (cfnLint: string) => void, timeoutMs: number): void {
  if (cfnLintPath) {
    it(name, () => check(cfnLintPath), timeoutMs);
  } else if (process.env.CI === 'true') {
    it(name, () => {
      throw new Error(missing);
    });
  } else {
    console.warn(`${missing}; skipped: ${name}`);
    it.skip(name);
  }
}
