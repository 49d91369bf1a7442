/**
 * Set-up on a fresh clone (README "Prerequisites"): on any Node that `engines` admits, npm installs without an
 * engine warning; the npm scripts, vitest and the processes the tests spawn run on the Node of the `node`
 * devDependency; and `package-lock.json` is complete enough for `npm ci` on any platform.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { subset } from 'semver';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '#test/support/child-process.ts';

interface PackageJson {
  engines: { node: string };
  devDependencies: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}
interface LockEntry {
  optionalDependencies?: Record<string, string>;
  engines?: { node?: string };
  optional?: boolean;
}

const packageJson = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as PackageJson;
const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** The Node major the project brings: the `node` devDependency's range (`^24.21.0` -> 24). */
const broughtMajor = Number(/^\^?(\d+)\./.exec(packageJson.devDependencies.node ?? '')?.[1]);

describe('the Node the project brings', () => {
  it('is a caret range of one major, whose install script npm is allowed to run', () => {
    expect(broughtMajor).toBeGreaterThanOrEqual(22);
    expect(packageJson.allowScripts?.node).toBe(true);
    expect(readFileSync(join(projectRoot, '.nvmrc'), 'utf8').trim()).toBe(String(broughtMajor));
  });

  it('runs this test process and every vitest worker (a worker is a child of process.execPath)', () => {
    expect(process.versions.node.split('.')[0]).toBe(String(broughtMajor));
    expect(process.execPath).toBe(join(projectRoot, 'node_modules', 'node', 'bin', 'node'));
  });

  it('is the `node` that a script or a spawned `node` command finds first on PATH', () => {
    const version = execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim();
    expect(version).toBe(process.version);
  });

  it("engines admits only Nodes that every installed package's engines admits: npm warns of no engine there", () => {
    expect(packageJson.engines).toEqual({ node: '^22.18.0 || ^24.0.0 || >=26.0.0' });
    const narrower = Object.entries(lock.packages).flatMap(([path, entry]) =>
      !entry.optional && entry.engines?.node && !subset(packageJson.engines.node, entry.engines.node)
        ? [`${path || 'the project'}: ${entry.engines.node}`]
        : [],
    );
    expect(narrower).toEqual([]);
  });
});

describe('package-lock.json', () => {
  /** Where Node would resolve `name` from the package at `path` (its own node_modules, then each parent's). */
  function resolves(path: string, name: string): boolean {
    let base = path;
    for (;;) {
      if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
      if (!base) return false;
      const parent = base.lastIndexOf('/node_modules/');
      base = parent < 0 ? '' : base.slice(0, parent);
    }
  }

  it("records every platform's optional package, so `npm ci` accepts it on any machine", () => {
    const missing = Object.entries(lock.packages).flatMap(([path, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !resolves(path, name))
        .map((name) => `${path} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
