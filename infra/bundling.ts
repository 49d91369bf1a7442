/** The esbuild settings of every Lambda bundle, stack and bench alike: docs/architecture.md "Bundles". */
import { fileURLToPath } from 'node:url';
import type { BundlingOptions, LogLevel, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, build, type Metafile } from 'esbuild';

/** The project root (the folder holding package.json and package-lock.json), as an absolute path. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** The banner that defines `require` inside the ESM bundle, for bundled CommonJS code. */
export const esmRequireBanner =
  "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

/**
 * Modules replaced inside the bundles (esbuild `alias`; targets relative to the project root, esbuild's
 * working directory in both forms), each kept for its share of the functions' load time: docs/architecture.md
 * "Bundles" says why, docs/performance.md "The bundle trims" what each saves.
 */
export const bundleAliases = {
  /** The SDK's default credential chain, reduced to its environment link. */
  '@aws-sdk/credential-provider-node': './lib/bundle-shims/credential-provider-env.ts',
  /** Event-stream support, which DynamoDB never uses: the stand-in throws. */
  '@smithy/core/event-streams': './lib/bundle-shims/no-event-streams.ts',
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
