/**
 * Folders import one way (docs/architecture.md "Layout"): no two folders import each other, even through others,
 * and no top-level folder imports one on a higher floor. The two packages meet at one point: nothing in
 * local-aws/ imports the service, and the service imports local-aws/ only through its entry,
 * `local-aws` (and the service's tests through its testing kit, `local-aws/testing`).
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

/** The local AWS's package name: its entry is local-aws/index.ts. */
const localAws = 'local-aws';

/** The project module `specifier` names from `file`, or undefined for a package. */
function resolved(file: string, specifier: string): string | undefined {
  if (specifier === localAws || specifier.startsWith(`${localAws}/`)) {
    return `local-aws/${specifier.slice(localAws.length + 1) || 'index.ts'}`;
  }
  for (const { alias, folder } of aliases) {
    if (specifier.startsWith(alias)) return folder + specifier.slice(alias.length);
  }
  return specifier.startsWith('.') ? normalize(join(dirname(file), specifier)) : undefined;
}

/** Every tracked TypeScript module (declaration files aside). */
const sources = execFileSync('git', ['ls-files', '*.ts'], { cwd: projectRoot, encoding: 'utf8' })
  .split('\n')
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'));

/** Each import of each module: the importing file, the specifier as written, and the module it names. */
function imports(): { file: string; specifier: string; target: string | undefined }[] {
  return sources.flatMap((file) =>
    [...readFileSync(join(projectRoot, file), 'utf8').matchAll(importPattern)].map(
      ([, fromStatement, fromCall]) => {
        const specifier = fromStatement ?? fromCall ?? '';
        return { file, specifier, target: resolved(file, specifier) };
      },
    ),
  );
}

/** Folder -> the other folders its modules import. */
function folderImports(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { file, target } of imports()) {
    if (target === undefined || dirname(target) === dirname(file)) continue;
    graph.set(dirname(file), (graph.get(dirname(file)) ?? new Set()).add(dirname(target)));
  }
  return graph;
}

/** True for a path inside the local AWS's package. */
const inLocalAws = (path: string) => path.startsWith('local-aws/');

it('nothing in local-aws imports the service: only its own modules and packages', () => {
  const service = imports()
    .filter(({ file }) => inLocalAws(file))
    .filter(
      ({ specifier, target }) => specifier.startsWith('#') || (target !== undefined && !inLocalAws(target)),
    )
    .map(({ file, specifier }) => `${file} -> ${specifier}`);
  expect(imports().some(({ file, target }) => inLocalAws(file) && target !== undefined)).toBe(true);
  expect(service).toEqual([]);
});

it('the service imports the local AWS only through its entry, local-aws, and its tests its testing kit', () => {
  const testingKit = `${localAws}/testing`;
  const internals = imports()
    .filter(({ file, target }) => !inLocalAws(file) && target !== undefined && inLocalAws(target))
    .filter(
      ({ file, specifier }) =>
        specifier !== localAws && !(specifier === testingKit && file.startsWith('test/')),
    )
    .map(({ file, specifier }) => `${file} -> ${specifier}`);
  expect(imports().some(({ file, specifier }) => file.startsWith('local/') && specifier === localAws)).toBe(
    true,
  );
  expect(internals).toEqual([]);
});

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
  expect(graph.get('local')).toContain('local-aws');
  expect(cycles).toEqual([]);
});

/** The code folders from the ground up (docs/architecture.md "Layout"); a folder's floor is its longest listed prefix. */
const floors = [
  ['local-aws'],
  ['lib'],
  ['functions', 'infra'],
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
