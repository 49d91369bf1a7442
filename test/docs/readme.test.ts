/**
 * The README is a front page that cannot drift: its operation table is lib/api.ts's operations (name, method,
 * path under the stage, scope) with openapi.yaml's stability, and names every operation of openapi.yaml; it
 * stays short; and it quotes no measured figure (times, sizes, ratios, percentages, test counts), so no figure
 * in it can outlive the run that produced it: measured figures live in docs/performance.md under the date of
 * their run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { operations, stageName } from '#lib/api.ts';
import { projectRoot } from '#test/support/child-process.ts';
import { headings, proseLines, section, tableRows } from '#test/support/markdown.ts';

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');

type Node = Record<string, unknown>;
const document = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as {
  paths: Record<string, Record<string, Node>>;
};

/** Each operation of openapi.yaml by operationId: `deprecated`, else its `x-stability`, else stable. */
const stability = new Map(
  Object.values(document.paths).flatMap((item) =>
    Object.values(item)
      .filter((operation) => typeof operation.operationId === 'string')
      .map((operation) => [
        operation.operationId as string,
        operation.deprecated === true ? 'deprecated' : ((operation['x-stability'] as string) ?? 'stable'),
      ]),
  ),
);

/** The rows of the README's operation table: operation, method and path, scope, stability (its first word). */
function readmeOperations(): string[][] {
  return tableRows(section(readme, 'Operations')).map(
    ([operation = '', address = '', scope = '', stable = '']) => [
      operation.replaceAll('`', ''),
      address.replaceAll('`', ''),
      scope.replaceAll('`', ''),
      /^\w+/.exec(stable)?.[0] ?? '',
    ],
  );
}

describe('README operation table', () => {
  it("is lib/api.ts's operations: name, method and path under the stage, scope; with openapi.yaml's stability", () => {
    const expected = operations.map((operation) => [
      operation.name,
      `${operation.method} /${stageName}${operation.path}`,
      operation.scope,
      stability.get(operation.name) ?? 'missing from openapi.yaml',
    ]);
    const byName = (a: string[], b: string[]) => (a[0] ?? '').localeCompare(b[0] ?? '');
    expect(readmeOperations().sort(byName)).toEqual(expected.sort(byName));
  });

  it('names every operation of openapi.yaml', () => {
    expect(
      readmeOperations()
        .map(([name]) => name)
        .sort(),
    ).toEqual([...stability.keys()].sort());
  });
});

describe('README as a front page', () => {
  it('is at most 200 lines outside code blocks', () => {
    expect(proseLines(readme).length).toBeLessThanOrEqual(200);
  });

  it('says how to start, test, read the API reference and deploy', () => {
    for (const words of [
      'npm install',
      'npm start',
      'npm test',
      'npm run test:all',
      '/docs',
      'npm run deploy:staging',
    ])
      expect(readme).toContain(words);
    expect(headings(readme)).toEqual(
      expect.arrayContaining(['Operations', 'Quick start', 'Tests', 'Deploying']),
    );
  });

  it('quotes no measured figure (time, size, ratio, percentage, throughput, test count)', () => {
    const measured = [
      /\d[\d,.]*\s?(?:ns|µs|ms|s|sec|seconds|min|minutes|h)\b/, // durations
      /\d[\d,.]*\s?(?:B|KB|kB|MB|GB|KiB|MiB|GiB)\b/, // sizes
      /\d[\d,.]*\s?%/, // percentages
      /\b\d[\d,.]*\s?x\b|\bx\s?\d/, // ratios
      /\b(?:faster|slower|p50|p90|p95|p99|RRU|WRU)\b/i, // comparisons, percentiles, capacity units
      /\d[\d,.]*\s?(?:req\/s|requests\/s|requests per second|rps)\b/i, // throughput
      /\b\d[\d,]*\s+(?:tests|test files|files|assertions)\b/, // suite counts
    ];
    const found = proseLines(readme).filter((line) => measured.some((pattern) => pattern.test(line)));
    expect(found).toEqual([]);
  });
});
