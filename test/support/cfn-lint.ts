/**
 * @module cfn-lint for the template tests (docs/testing.md "cfn-lint"): a test that needs it runs when it is on
 * PATH; in CI (`CI=true`, which `.ci/run` and GitHub Actions set) its absence fails the test, saying how to
 * install it; on a developer's machine the test is skipped with a warning that says the same.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';

/** The path of `cfn-lint` on PATH, or undefined. */
const cfnLintPath: string | undefined =
  spawnSync('sh', ['-c', 'command -v cfn-lint'], { encoding: 'utf8' }).stdout.trim() || undefined;

/** What to do without cfn-lint. */
const missing =
  'cfn-lint is not on PATH: install it with `pipx install cfn-lint` or `pip install cfn-lint` (`bash .ci/run` does)';

/** How long cfn-lint may take on a loaded machine (ms), and the test around it. */
const cfnLintTimeoutMs = 300_000;

/**
 * Registers the test `name` that runs cfn-lint on the templates `paths()` gives and expects no error (E
 * findings, or cfn-lint failing to run). Without cfn-lint: a failing test naming the install command in CI,
 * else a skipped test and a warning.
 */
export function itWithCfnLint(name: string, paths: () => string[]): void {
  if (cfnLintPath) {
    const cfnLint = cfnLintPath;
    it(
      name,
      () => {
        const result = spawnSync(cfnLint, ['--format', 'parseable', ...paths()], {
          encoding: 'utf8',
          timeout: cfnLintTimeoutMs,
        });
        expect(result.stdout.split('\n').filter((line) => /:E\d{4}:/.test(line))).toEqual([]);
        // cfn-lint's exit code: bit 2 = errors, 4 = warnings, 8 = informational; 1 = it failed to run.
        expect(result.status === null ? 1 : result.status & 3, `${result.error ?? ''}${result.stderr}`).toBe(
          0,
        );
      },
      cfnLintTimeoutMs,
    );
  } else if (process.env.CI === 'true') {
    it(name, () => {
      throw new Error(missing);
    });
  } else {
    console.warn(`${missing}; skipped: ${name}`);
    it.skip(name);
  }
}
