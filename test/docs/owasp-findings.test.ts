/**
 * The OWASP ruleset's findings on openapi.yaml are judged in docs/api-reference.md "Linting openapi.yaml": its
 * table names every rule that fires, with the number of findings, so a change that adds or removes a finding
 * has to be judged there too.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { childEnv, projectRoot, runCommand } from '#test/support/child-process.ts';
import { section, tableRows } from '#test/support/markdown.ts';

const require = createRequire(import.meta.url);
const spectralCli = join(dirname(require.resolve('@stoplight/spectral-cli/package.json')), 'dist/index.js');
// The package exports its ruleset only (`dist/ruleset.js` for require); the CLI loads the ES module beside it.
const owaspRuleset = join(dirname(require.resolve('@stoplight/spectral-owasp-ruleset')), 'ruleset.mjs');

/** Spectral's findings with the OWASP ruleset, counted by rule. */
async function owaspFindings(): Promise<Record<string, number>> {
  const result = await runCommand(
    process.execPath,
    [spectralCli, 'lint', 'openapi.yaml', '--ruleset', owaspRuleset, '--format', 'json', '--quiet'],
    { env: childEnv({}), timeoutMs: 120_000 },
  );
  const findings = JSON.parse(result.stdout) as { code: string }[];
  expect(findings.length).toBeGreaterThan(0);
  const counts: Record<string, number> = {};
  for (const { code } of findings) counts[code] = (counts[code] ?? 0) + 1;
  return counts;
}

/** The table of docs/api-reference.md: each rule with the number its finding cell starts with. */
async function judgedFindings(): Promise<Record<string, number>> {
  const page = await readFile(join(projectRoot, 'docs/api-reference.md'), 'utf8');
  const rows = tableRows(section(page, 'Linting openapi.yaml'));
  return Object.fromEntries(
    rows.map(([rule, finding]) => [rule?.replaceAll('`', ''), Number(/^[0-9]+/.exec(finding ?? '')?.[0])]),
  );
}

it('judges every rule of the OWASP ruleset that fires on openapi.yaml, with its number of findings', async () => {
  const [found, judged] = await Promise.all([owaspFindings(), judgedFindings()]);
  expect(judged).toEqual(found);
}, 150_000); // Spectral loads its ruleset and lints the whole description in a child process
