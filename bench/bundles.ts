/**
 * Builds the bundles under measurement with the deployed esbuild settings (`bundleFunction` of
 * infra/bundling.ts, never a copy of its settings): one per function of the operation table plus the
 * authorizer, and two builds of the baseline handler (bench/baseline-handler.ts):
 * - {@link baselineName}, the budget's baseline, "the naive SDK client alone": the same esbuild settings
 *   without the service's trims (`untrimmedEsbuildOptions` of infra/bundling.ts: the `alias` entries left
 *   out, every other setting identical), i.e. what bundling the bare SDK client with these settings gives;
 * - {@link trimmedBaselineName}, informational: the baseline with the trims too, so readers see what the
 *   functions' middleware costs above the same trimmed SDK.
 * Reads sizes from esbuild's metafile.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { bundleFileName, bundleFunction, untrimmedEsbuildOptions } from '#infra/bundling.ts';
import { authorizer, operations } from '#lib/api.ts';

/**
 * Name of the budget's baseline bundle in the results: bench/baseline-handler.ts bundled with the deployed
 * esbuild settings minus the trims (the naive SDK client alone).
 */
export const baselineName = 'baseline';

/** Name of the informational baseline: the same handler bundled with the trims (the deployed settings). */
export const trimmedBaselineName = 'baseline (trimmed)';

/** The names of both baseline bundles (not functions: no size budget). */
export const baselineNames: readonly string[] = [baselineName, trimmedBaselineName];

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
  /** Function name from lib/api.ts, {@link baselineName} or {@link trimmedBaselineName}. */
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
 * Bundles `entry` with the deployed settings minus the module replacements (`untrimmedEsbuildOptions` of
 * infra/bundling.ts: no `alias`), into `<outRoot>/<name>-untrimmed/index.mjs`, named `name` + `suffix`
 * (default {@link untrimmedSuffix}). For the functions, a reference only (what the trims buy); for the
 * baseline handler, the budget's baseline (see the module docstring).
 */
export async function buildUntrimmedBundle(
  name: string,
  entry: string,
  outRoot = bundlesDir,
  suffix = untrimmedSuffix,
): Promise<BuiltBundle> {
  const outdir = join(outRoot, `${name}-untrimmed`);
  const start = performance.now();
  const { metafile } = await build(untrimmedEsbuildOptions(entry, outdir));
  const buildMs = performance.now() - start;
  if (!metafile) throw new Error('esbuild returned no metafile');
  const { js, mapBytes } = outputsOf(metafile);
  return summarizeOutput(`${name}${suffix}`, entry, outdir, js, mapBytes, buildMs);
}

/** Every function of the service (operations, then the authorizer), as name and entry. */
export function serviceFunctions(): { name: string; entry: string }[] {
  return [...operations, authorizer].map(({ name, entry }) => ({ name, entry }));
}

/**
 * Builds every function's bundle (deployed settings), then the budget's baseline (naive: no trims) and the
 * trimmed baseline, one after the other (esbuild already uses both cores).
 */
export async function buildAllBundles(outRoot = bundlesDir): Promise<BuiltBundle[]> {
  const built: BuiltBundle[] = [];
  for (const { name, entry } of serviceFunctions()) built.push(await buildBundle(name, entry, outRoot));
  built.push(await buildUntrimmedBundle(baselineName, baselineEntry, outRoot, ''));
  built.push(await buildBundle(trimmedBaselineName, baselineEntry, outRoot));
  return built;
}

/** The functions' reference bundles without the trims (see {@link buildUntrimmedBundle}). */
export async function buildAllUntrimmedBundles(outRoot = bundlesDir): Promise<BuiltBundle[]> {
  const built: BuiltBundle[] = [];
  for (const { name, entry } of serviceFunctions()) {
    built.push(await buildUntrimmedBundle(name, entry, outRoot));
  }
  return built;
}
