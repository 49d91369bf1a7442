/**
 * Every pointer into a Markdown page resolves: wherever a file of the repository (code comment, doc, workflow,
 * stack description) names a page followed by a quoted heading, that page exists and has that heading, exactly.
 * The README is named as `README`; a bare page name (`contract.md`) is the nearest page of that name, beside the
 * naming file or in a folder above it up to the root.
 * Several headings may follow one page name, joined by commas or `and`. A heading ending in a parenthetical note
 * (`Pets (experimental, ...)`) may be named without it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot } from '#test/support/child-process.ts';
import { headings } from '#test/support/markdown.ts';

/** Text files of the repository, tracked or new (not ignored), except the lock file. */
const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
  cwd: projectRoot,
  encoding: 'utf8',
})
  .split('\n')
  .filter((file) => /\.(md|ts|ya?ml|json|sh)$|^\.ci\/run$/.test(file))
  .filter((file) => file !== 'package-lock.json' && existsSync(join(projectRoot, file)));

/** A page name, then one quoted heading or more: `page "A"`, `page, "A"`, `page's "A"`, `page "A" and "B"`. */
const pointer =
  /(?<![\w./-])`?(README(?:\.md)?|(?:[\w.-]+\/)*[\w.-]+\.md)`?(?:'s)?,? "([^"]{1,120})"((?:(?:,| and| or)+ "[^"]{1,120}")*)/g;

/** `text` with comment continuations (`*`, `//`, `#` at the start of a line) joined into one line each. */
function joined(text: string): string {
  return text.replace(/[ \t]*\n[ \t]*(?:\*(?!\/)|\/\/|#(?!#))?[ \t]*/g, ' ');
}

/**
 * The page a pointer in `from` names, as a path from the project root (undefined when there is none): a bare
 * name is the nearest such page, beside `from` or in a folder above it (a package's own `README.md`).
 */
function page(from: string, name: string): string | undefined {
  if (name === 'README') return 'README.md';
  if (name.includes('/')) return existsSync(join(projectRoot, name)) ? name : undefined;
  for (let folder = dirname(from); ; folder = dirname(folder)) {
    const candidate = join(folder, name);
    if (existsSync(join(projectRoot, candidate))) return candidate;
    if (folder === '.') return undefined;
  }
}

/** Every pointer of the repository: where it is, the page it names and the heading. */
const pointers = files.flatMap((from) =>
  [...joined(readFileSync(join(projectRoot, from), 'utf8')).matchAll(pointer)].flatMap((match) => {
    const [, name = '', first = '', more = ''] = match;
    const named = [first, ...[...more.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string)];
    return named.map((heading) => ({ from, name, heading }));
  }),
);

it('finds the pointers (the pattern still matches how the repository writes them)', () => {
  expect(pointers.length).toBeGreaterThan(50);
  expect(pointers.map((p) => `${p.name} "${p.heading}"`)).toContain('docs/contract.md "Errors"');
});

it('every page-and-heading pointer names an existing page and one of its headings', () => {
  const cache = new Map<string, string[]>();
  const broken = pointers.filter(({ from, name, heading }) => {
    const target = page(from, name);
    if (target === undefined) return true;
    if (!cache.has(target)) cache.set(target, headings(readFileSync(join(projectRoot, target), 'utf8')));
    return !cache.get(target)?.some((h) => h === heading || h.replace(/ \(.*\)$/, '') === heading);
  });
  expect(broken.map(({ from, name, heading }) => `${from}: ${name} "${heading}"`)).toEqual([]);
});
