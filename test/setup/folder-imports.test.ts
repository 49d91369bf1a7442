/**
 * Folders import one way (docs/architecture.md "Layout"): no two folders import each other, even through others,
 * and no top-level folder imports one on a higher floor.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { expect, it } from 'vitest';
import { projectRoot } from '#test/support/child-process.ts';

/** The package.json `imports` aliases, as folder prefixes: `#lib/` -> `lib/`. */
const aliases = Object.entries(
  JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).imports as Record<string, string>,
).map(([alias, target]) => ({
  alias: alias.replace('*', ''),
  folder: target.replace('./', '').replace('*', ''),
}));

/** The module names of static, dynamic and type-only imports and re-exports (the code is biome-formatted). */
const importPattern =
  /(?:^|\n)\s*(?:import|export)\b[^;'"]*?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The project module `specifier` names from `file`, or undefined for a package. */
function resolved(file: string, specifier: string): string | undefined {
  for (const { alias, folder } of aliases) {
    if (specifier.startsWith(alias)) return folder + specifier.slice(alias.length);
  }
  return specifier.startsWith('.') ? normalize(join(dirname(file), specifier)) : undefined;
}

/** Folder -> the other folders its modules import. */
function folderImports(): Map<string, Set<string>> {
  const sources = execFileSync('git', ['ls-files', '*.ts'], { cwd: projectRoot, encoding: 'utf8' })
    .split('\n')
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));
  const graph = new Map<string, Set<string>>();
  for (const file of sources) {
    for (const [, fromStatement, fromCall] of readFileSync(join(projectRoot, file), 'utf8').matchAll(
      importPattern,
    )) {
      const target = resolved(file, fromStatement ?? fromCall ?? '');
      if (target === undefined || dirname(target) === dirname(file)) continue;
      graph.set(dirname(file), (graph.get(dirname(file)) ?? new Set()).add(dirname(target)));
    }
  }
  return graph;
}

it('no folder imports, directly or through others, a folder that imports it', () => {
  const graph = folderImports();
  const reaches = (from: string, to: string, seen = new Set<string>()): boolean => {
    if (from === to) return true;
    if (seen.has(from)) return false;
    seen.add(from);
    return [...(graph.get(from) ?? [])].some((next) => reaches(next, to, seen));
  };
  const cycles = [...graph].flatMap(([from, targets]) =>
    [...targets].filter((to) => reaches(to, from)).map((to) => `${from} -> ${to}`),
  );
  expect(graph.get('ops')).toContain('lib/admin');
  expect(cycles).toEqual([]);
});

/** The code folders from the ground up (docs/architecture.md "Layout"); a folder's floor is its longest listed prefix. */
const floors = [
  ['lib'],
  ['functions', 'infra'],
  ['local-aws'],
  ['local'],
  ['ops'],
  ['test/support'],
  ['bench'],
  ['test'],
];
const floorOf = (folder: string): number => {
  const prefixes = floors.flat().filter((prefix) => folder === prefix || folder.startsWith(`${prefix}/`));
  const longest = prefixes.sort((a, b) => b.length - a.length)[0];
  return floors.findIndex((floor) => floor.includes(longest ?? ''));
};

it('no import runs back up: a top-level folder imports only folders on a lower floor', () => {
  const upward = [...folderImports()].flatMap(([from, targets]) =>
    [...targets]
      .filter(
        (to) => floorOf(to) >= 0 && from.split('/')[0] !== to.split('/')[0] && floorOf(to) >= floorOf(from),
      )
      .map((to) => `${from} -> ${to}`),
  );
  expect(floors.flat().filter((folder) => floorOf(folder) < 0)).toEqual([]);
  expect(upward).toEqual([]);
});
