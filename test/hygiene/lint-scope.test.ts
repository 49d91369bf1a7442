/**
 * `npm test` lints what git tracks (package.json `lint`, docs/testing.md "Running the tests"): a scratch file a
 * developer keeps in the clone, untracked, never fails the suite, while the same file is a finding when named.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { projectRoot } from '#test/support/child-process.ts';

/** An untracked file in the clone's root that Biome's formatter and linter both refuse. */
const scratch = `scratch-lint-scope-${process.pid}.mjs`;
afterAll(() => rm(join(projectRoot, scratch), { force: true }));

/** Runs `command` with a shell in the project root, the project's tools first on PATH (as npm runs scripts). */
function run(command: string) {
  const path = `${join(projectRoot, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`;
  const result = spawnSync('sh', ['-c', command], {
    cwd: projectRoot,
    env: { ...process.env, PATH: path },
    encoding: 'utf8',
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

test('an untracked file that fails Biome is not linted by `npm run lint`', async () => {
  await writeFile(join(projectRoot, scratch), 'var  unused =1\n');
  const named = run(`biome check ${scratch}`);
  expect(named.code, named.output).toBe(1);
  expect(named.output).toContain(scratch);

  const { lint } = (
    JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  const linted = run(lint as string);
  expect(linted.output).toMatch(/Checked \d+ files/);
  expect(linted.output).not.toContain(scratch);
});
