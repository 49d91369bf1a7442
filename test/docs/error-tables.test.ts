/**
 * The error codes are written down in one page and in the contract's description, both equal to the code:
 * docs/contract.md "Errors" and the table of openapi.yaml's `info.description` (shown at the top of the API
 * reference page) list exactly the (status, code) pairs of lib/http/errors.ts; no other Markdown page keeps
 * its own table of codes (a second copy would drift).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { errorStatus } from '#lib/http/errors.ts';
import { projectRoot } from '#test/support/child-process.ts';
import { section, tableRows } from '#test/support/markdown.ts';

/** The code's (status, code) pairs, sorted. */
const codes = Object.entries(errorStatus)
  .map(([code, status]) => `${status} ${code}`)
  .sort();

/** The (status, code) rows of the tables among `lines`: first cell a status, second a code in backticks. */
function errorRows(lines: readonly string[]): string[] {
  return tableRows(lines)
    .filter(([status = '', code = '']) => /^\d{3}$/.test(status) && /^`[a-z_]+`$/.test(code))
    .map(([status, code = '']) => `${status} ${code.replaceAll('`', '')}`)
    .sort();
}

describe('error tables', () => {
  it('docs/contract.md "Errors" lists exactly the codes of lib/http/errors.ts', () => {
    const page = readFileSync(join(projectRoot, 'docs/contract.md'), 'utf8');
    expect(errorRows(section(page, 'Errors'))).toEqual(codes);
  });

  it("openapi.yaml's description lists exactly the codes of lib/http/errors.ts", () => {
    const document = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as {
      info: { description: string };
    };
    expect(errorRows(section(document.info.description, 'Errors'))).toEqual(codes);
  });

  it('no other Markdown page keeps a table of error codes', () => {
    const pages = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
      cwd: projectRoot,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => file !== '' && file !== 'docs/contract.md');
    const withTable = pages.filter(
      (file) => errorRows(readFileSync(join(projectRoot, file), 'utf8').split('\n')).length > 0,
    );
    expect(withTable).toEqual([]);
  });
});
