/**
 * Builds the bundles under measurement with the deployed esbuild settings (`bundleFunction` of
 * infra/bundling.ts, never a copy of its settings): one per function of the operation table plus the
 * authorizer, and the baseline (bench/baseline-handler.ts). Reads sizes from esbuild's metafile.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { bundleFileName, bundleFunction, esbuildOptions } from '#infra/bundling.ts';
import { authorizer, operations } from '#lib/api.ts';

/** Name of the baseline bundle in the results. */
export const baselineName = 'baseline';

/** The baseline handler module, relative to the project root. */
export const baselineEntry = 'bench/baseline-handler.ts';

/** What a bundle is made of: bytes contributed to the minified output by one package. */
export interface PackageShare {
  /** npm package name, or `(project)` for the service's own modules. */
  name: string;
  bytes: number;
}

/** One built bundle. Sizes in bytes. */
export interface BuiltBundle {
  /** Function name from lib/api.ts, or {@link baselineName}. */
  name: string;
  entry: string;
  /** Absolute path of the bundle (`index.mjs`). */
  file: string;
  /** Minified JavaScript, what Node loads. */
  jsBytes: number;
  /** The external source map beside it (read at run time only with `--enable-source-maps`). */
  mapBytes: number;
  /** Packages by bytes in the output, largest first. */
  packages: PackageShare[];
  /** Milliseconds esbuild took. */
  buildMs: number;
}

/** The folder the bench writes its bundles to (outside the repository). */
export const bundlesDir = join(tmpdir(), 'pet-store-bench', 'bundles');

/** Package of a metafile input path (`node_modules/@scope/name/...` -> `@scope/name`), else `(project)`. */
export function packageOf(inputPath: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(inputPath);
  return match?.[1] ?? '(project)';
}

/** The `index.mjs` and `index.mjs.map` entries of a metafile's outputs. */
function outputsOf(metafile: Metafile) {
  const entries = Object.entries(metafile.outputs);
  const js = entries.find(([path]) => path.endsWith(`/${bundleFileName}`))?.[1];
  const map = entries.find(([path]) => path.endsWith(`/${bundleFileName}.map`))?.[1];
  if (!js) throw new Error(`esbuild wrote no ${bundleFileName}`);
  return { js, mapBytes: map?.bytes ?? 0 };
}

/**
 * Bundles `entry` into `<outRoot>/<name>/index.mjs` with the deployed settings.
 * @returns the bundle's path, sizes (bytes) and package breakdown.
 */
export async function buildBundle(name: string, entry: string, outRoot = bundlesDir): Promise<BuiltBundle> {
  const outdir = join(outRoot, name);
  const start = performance.now();
  const metafile = await bundleFunction(entry, outdir);
  const buildMs = performance.now() - start;
  const { js, mapBytes } = outputsOf(metafile);
  return summarizeOutput(name, entry, outdir, js, mapBytes, buildMs);
}

/** A {@link BuiltBundle} from esbuild's description of the written `index.mjs`. */
function summarizeOutput(
  name: string,
  entry: string,
  outdir: string,
  js: Metafile['outputs'][string],
  mapBytes: number,
  buildMs: number,
): BuiltBundle {
  const byPackage = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(js.inputs)) {
    const pkg = packageOf(path);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
  }
  const packages = [...byPackage]
    .map(([pkgName, bytes]) => ({ name: pkgName, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
  return { name, entry, file: join(outdir, bundleFileName), jsBytes: js.bytes, mapBytes, packages, buildMs };
}

/** Suffix of the names of the reference bundles built without the trims. */
export const untrimmedSuffix = ' (untrimmed)';

/**
 * For reference only (what the trims buy): bundles `entry` with the deployed settings minus the module
 * replacements (`alias`) of infra/bundling.ts, into `<outRoot>/<name>-untrimmed/index.mjs`. Never the
 * figures the budgets are checked against.
 */
export async function buildUntrimmedBundle(
  name: string,
  entry: string,
  outRoot = bundlesDir,
): Promise<BuiltBundle> {
  const outdir = join(outRoot, `${name}-untrimmed`);
  const { alias: _trims, ...options } = esbuildOptions(entry, outdir);
  const start = performance.now();
  const { metafile } = await build(options);
  const buildMs = performance.now() - start;
  if (!metafile) throw new Error('esbuild returned no metafile');
  const { js, mapBytes } = outputsOf(metafile);
  return summarizeOutput(`${name}${untrimmedSuffix}`, entry, outdir, js, mapBytes, buildMs);
}

/** Every function of the service (operations, then the authorizer), as name and entry. */
export function serviceFunctions(): { name: string; entry: string }[] {
  return [...operations, authorizer].map(({ name, entry }) => ({ name, entry }));
}

/** Builds every function's bundle and the baseline, one after the other (esbuild already uses both cores). */
export async function buildAllBundles(outRoot = bundlesDir): Promise<BuiltBundle[]> {
  const built: BuiltBundle[] = [];
  for (const { name, entry } of [...serviceFunctions(), { name: baselineName, entry: baselineEntry }]) {
    built.push(await buildBundle(name, entry, outRoot));
  }
  return built;
}

/** The reference bundles without the trims (see {@link buildUntrimmedBundle}), functions then baseline. */
export async function buildAllUntrimmedBundles(outRoot = bundlesDir): Promise<BuiltBundle[]> {
  const built: BuiltBundle[] = [];
  for (const { name, entry } of [...serviceFunctions(), { name: baselineName, entry: baselineEntry }]) {
    built.push(await buildUntrimmedBundle(name, entry, outRoot));
  }
  return built;
}
