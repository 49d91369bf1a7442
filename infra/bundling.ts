/**
 * The esbuild settings of every Lambda bundle, in one place, in two forms: {@link cdkBundling} for
 * `NodejsFunction`'s `bundling` prop, and {@link bundleFunction} for a plain `esbuild.build()` with the very
 * same settings (benchmarks measure bundle size and load time with it; tests import what it writes).
 *
 * The bundle: one ESM file `index.mjs` for Node 24 (`target` node24), minified, with an external source map
 * (`index.mjs.map`, without sources content, read at run time thanks to `NODE_OPTIONS=--enable-source-maps`).
 * Nothing is external: the AWS SDK v3 is bundled and tree-shaken instead of taken from the runtime, so the
 * deployed SDK version is the one the tests ran, and `mainFields` prefers each package's ESM build so unused
 * SDK code is dropped. The banner gives the ESM bundle a CommonJS `require`, without which bundled CommonJS
 * code dies at init with `Dynamic require of "node:https" is not supported`.
 *
 * Trims ({@link bundleAliases}): three modules are replaced inside the bundles by small stand-ins in
 * `infra/lambda-shims/`, each justified where it is configured and measured by `npm run bench`
 * (README "Performance"); `test/bench/trimmed-bundles.test.ts` invokes every trimmed bundle against a real
 * DynamoDB API so a trim cannot break the deployed code unnoticed. {@link untrimmedEsbuildOptions} gives the
 * same settings without the trims, for the bench only (its load-time baseline, "the naive SDK client alone",
 * and what the trims buy); nothing is deployed with it.
 */
import { fileURLToPath } from 'node:url';
import type { BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, build, type Metafile } from 'esbuild';

/** The project root (the folder holding package.json and package-lock.json), as an absolute path. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** The banner that defines `require` inside the ESM bundle (see the module docstring). */
export const esmRequireBanner =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Modules replaced inside the bundles (esbuild `alias`; targets relative to the project root, esbuild's
 * working directory in both forms). Each stand-in's header says why; the bench measures the effect (README
 * "Performance").
 */
export const bundleAliases = {
  /** The SDK's default credential chain, reduced to its environment link (the stand-in's header says why). */
  '@aws-sdk/credential-provider-node': './infra/lambda-shims/credential-provider-env.ts',
  /** `node:http` loaded with `require`, so its ESM facade does not load undici (the stand-in's header says why). */
  'node:http': './infra/lambda-shims/node-http.ts',
  /**
   * Event-stream support, inlined from an on-demand import the SDK takes only for operations with
   * event-stream members, which DynamoDB has none of. The stand-in throws if that ever changes.
   */
  '@smithy/core/event-streams': './infra/lambda-shims/no-event-streams.ts',
  /**
   * The JMESPath interpreter that Powertools' Idempotency utility uses to select the key and payload of
   * placeOrder, whose expressions are plain member names: the stand-in evaluates member paths and throws for
   * anything else (it keeps placeOrder's bundle under the 250 KB budget).
   */
  '@aws-lambda-powertools/jmespath/functions': './infra/lambda-shims/jmespath-paths.ts',
  '@aws-lambda-powertools/jmespath': './infra/lambda-shims/jmespath-paths.ts',
} as const;

/** The settings shared by both forms. `target` matches the Lambda runtime nodejs24.x. */
export const bundleSettings = {
  format: 'esm',
  target: 'node24',
  platform: 'node',
  minify: true,
  sourcemap: true,
  sourcesContent: false,
  banner: esmRequireBanner,
  mainFields: ['module', 'main'],
  external: [] as string[],
  alias: bundleAliases,
} as const;

/** The file name of the bundle inside its asset folder, as `NodejsFunction` writes it for ESM output. */
export const bundleFileName = 'index.mjs';

/**
 * `NodejsFunction` `bundling` props with {@link bundleSettings}: local esbuild (the devDependency), never
 * Docker; the AWS SDK bundled (`bundleAwsSDK`, no external modules).
 */
export const cdkBundling: BundlingOptions = {
  format: bundleSettings.format as OutputFormat,
  target: bundleSettings.target,
  minify: bundleSettings.minify,
  sourceMap: bundleSettings.sourcemap,
  sourcesContent: bundleSettings.sourcesContent,
  banner: bundleSettings.banner,
  mainFields: [...bundleSettings.mainFields],
  externalModules: [...bundleSettings.external],
  esbuildArgs: { '--alias': Object.entries(bundleSettings.alias).map(([from, to]) => `${from}=${to}`) },
  bundleAwsSDK: true,
  forceDockerBundling: false,
  logLevel: 'warning' as LogLevel,
};

/** `esbuild.build()` options with {@link bundleSettings}, writing `<outdir>/index.mjs` for `entry`. */
export function esbuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    absWorkingDir: projectRoot,
    entryPoints: { index: entry },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    treeShaking: true,
    format: bundleSettings.format,
    target: bundleSettings.target,
    platform: bundleSettings.platform,
    minify: bundleSettings.minify,
    sourcemap: bundleSettings.sourcemap,
    sourcesContent: bundleSettings.sourcesContent,
    banner: { js: bundleSettings.banner },
    mainFields: [...bundleSettings.mainFields],
    external: [...bundleSettings.external],
    alias: { ...bundleSettings.alias },
    metafile: true,
    logLevel: 'warning',
  };
}

/**
 * {@link esbuildOptions} without the trims (no `alias`: {@link bundleAliases} left out), every other setting
 * identical (format, target, platform, minify, source map, banner, tree shaking, mainFields, external). What
 * a naive bundle of `entry` with the same esbuild settings is; used by the bench only (its load-time baseline
 * and the "what the trims buy" reference), never deployed.
 */
export function untrimmedEsbuildOptions(entry: string, outdir: string): BuildOptions {
  const { alias: _trims, ...options } = esbuildOptions(entry, outdir);
  return options;
}

/**
 * Bundles one handler module exactly as the stack does.
 * @param entry handler module, relative to the project root (e.g. `functions/list-inventory/handler.ts`) or absolute
 * @param outdir folder that receives `index.mjs` and `index.mjs.map` (created if missing)
 * @returns esbuild's metafile: `inputs` (source files, paths relative to the project root, with bytes) and
 *   `outputs` (written files with bytes)
 * @throws esbuild's error when the entry or an import cannot be resolved or compiled
 */
export async function bundleFunction(entry: string, outdir: string): Promise<Metafile> {
  const result = await build(esbuildOptions(entry, outdir));
  if (!result.metafile) throw new Error('esbuild returned no metafile');
  return result.metafile;
}
