/**
 * The repository stands alone (docs/ holds the specification and the contract): no tracked file points to a
 * document outside it (another folder, this project's issue tracker) or to a path of one machine, and every
 * project path the docs, comments and tests name exists (generated files excepted).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot } from '#test/support/child-process.ts';

/** Tracked text files, except the lock file. */
const files = execFileSync('git', ['ls-files'], { cwd: projectRoot, encoding: 'utf8' })
  .split('\n')
  .filter((file) => /\.(md|ts|ya?ml|json|sh|csv)$|^\.ci\/run$/.test(file))
  .filter((file) => file !== 'package-lock.json');

/** Files the project writes and does not track, which docs may name. */
const generated = new Set(['bench/results.json', 'client/src/schema.ts']);

function read(file: string): string {
  return readFileSync(join(projectRoot, file), 'utf8');
}

it('no file refers to a document outside the repository, to an issue of the tracker or to a path of one machine', () => {
  const outside = ['../', 'shared/'].join('');
  const machinePath = /(^|[\s'"`(])\/(work|home|Users|root)\//;
  /** This project's issue tracker is not in the repository: a rule's source is a page of docs/. */
  const trackerIssue = /\bissues? \d/i;
  const found = files.flatMap((file) =>
    read(file)
      .split('\n')
      .map((line, index) => ({ line, at: `${file}:${index + 1}` }))
      .filter(({ line }) => line.includes(outside) || machinePath.test(line) || trackerIssue.test(line))
      .map(({ at, line }) => `${at}: ${line.trim()}`),
  );
  expect(found).toEqual([]);
});

/** The workspace package holding `file` (its folder, with a package.json of its own), or the root (''). */
function packageOf(file: string): string {
  const [top] = file.split('/');
  return top !== file && existsSync(join(projectRoot, top as string, 'package.json')) ? (top as string) : '';
}

it('every project file path named in a tracked file exists', () => {
  const path =
    /(?<![\w./-])((?:lib|infra|functions|test|bench|docs|client|events|\.github|\.ci)\/[\w./-]*\.(?:ts|md|ya?ml|json|csv))\b/g;
  // A workspace package's files name its own paths from its folder (it stands alone: local-aws/README.md).
  const exists = (file: string, named: string) =>
    existsSync(join(projectRoot, named)) || existsSync(join(projectRoot, packageOf(file), named));
  const missing = files.flatMap((file) =>
    [...read(file).matchAll(path)]
      .map((match) => match[1] ?? '')
      .filter((named) => !generated.has(named) && !exists(file, named))
      .map((named) => `${file}: ${named}`),
  );
  expect(missing).toEqual([]);
});

it('the local AWS names no file outside its folder and nothing of the pet store (local-aws/README.md)', () => {
  const ownPath =
    /(?<![\w./-])((?:lib|infra|functions|test|bench|docs|local|ops|client|events|\.github|\.ci)\/[\w./-]*\.(?:ts|md|ya?ml|json|csv))\b/g;
  const relative = /(?:\]\(|['"`])(\.\.\/[^)'"`\s]*)/g;
  const petStore =
    /\bpets?\b|\bpetIds?\b|pet[ -]store|inventory|DATA_DIR|npm start|npm run (keys|import|webhooks)/i;
  const packageFiles = files.filter((file) => packageOf(file) === 'local-aws');
  const found = packageFiles.flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, index) => {
        const at = `${file}:${index + 1}`;
        const outside = [
          ...[...line.matchAll(ownPath)]
            .map((match) => match[1] ?? '')
            .filter((named) => !existsSync(join(projectRoot, 'local-aws', named))),
          ...[...line.matchAll(relative)]
            .map((match) => match[1] ?? '')
            .filter((named) => !normalize(join(dirname(file), named)).startsWith('local-aws/')),
        ];
        return [
          ...outside.map((named) => `${at}: names ${named}`),
          ...(petStore.test(line) ? [`${at}: ${line.trim()}`] : []),
        ];
      }),
  );
  expect(packageFiles.length).toBeGreaterThan(50);
  expect(found).toEqual([]);
});
