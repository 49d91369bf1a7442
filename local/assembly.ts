/** The cloud assembly the local API serves: `cdk synth`, or in-process without bundling (docs/local-api.md "What it serves"). */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Template } from 'local-aws';
import { functionLogicalId, tableLogicalId } from '#infra/inventory-stack.ts';
import { type EnvironmentName, stackName } from '#infra/settings.ts';
import { authorizer, eventFunctions, operations } from '#lib/api.ts';
import { type TableId, tables } from '#lib/tables.ts';

/** The project root. */
export const projectRoot = fileURLToPath(new URL('../', import.meta.url));

/** One stack of a cloud assembly, to serve. */
export interface ServedStack {
  /** The cloud assembly folder. */
  assemblyDir: string;
  template: Template;
  /** True: run each function's TypeScript entry (plain `npm start`); false: its synthesized bundle. */
  sources: boolean;
}

/** A command to run: the executable, its arguments and its environment. */
export interface Command {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * The `cdk synth` that writes the cloud assembly to `outdir`: the project's CDK CLI on this Node, with the
 * variables of `npm run synth`, run in the project root.
 */
export function synthCommand(outdir: string): Command {
  const cli = join(projectRoot, 'node_modules', 'aws-cdk', 'bin', 'cdk');
  return {
    file: process.execPath,
    args: [cli, 'synth', '--quiet', '--no-notices', '--output', outdir],
    env: {
      ...process.env,
      CDK_DISABLE_VERSION_CHECK: 'true',
      CDK_DISABLE_CLI_TELEMETRY: 'true',
      AWS_EC2_METADATA_DISABLED: 'true',
      AWS_REGION: process.env.AWS_REGION || 'us-east-1',
    },
  };
}

/**
 * Runs {@link synthCommand}, writing the cloud assembly to `outdir`.
 * @throws Error with the CLI's output when synthesis fails (a cdk-nag finding, a compile error, ...)
 */
export async function synthesize(outdir: string): Promise<void> {
  const { file, args, env } = synthCommand(outdir);
  const child = spawn(file, args, { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  if (code !== 0) throw new Error(`cdk synth failed (exit ${code}):\n${output}`);
}

/** Reads the template of `environment`'s stack from the cloud assembly `assemblyDir`. */
export async function readStack(
  assemblyDir: string,
  environment: EnvironmentName,
  sources = false,
): Promise<ServedStack> {
  const path = join(assemblyDir, `${stackName(environment)}.template.json`);
  const template = JSON.parse(await readFile(path, 'utf8')) as Template;
  return { assemblyDir, template, sources };
}

/**
 * Synthesizes the app in this process with bundling skipped (context `aws:cdk:bundling-stacks: []`) into a
 * temporary folder, and returns `environment`'s stack to be served from the TypeScript sources.
 */
export async function synthesizeForSources(environment: EnvironmentName): Promise<ServedStack> {
  const { createServiceApp } = await import('#infra/service-app.ts');
  const outdir = await mkdtemp(join(tmpdir(), 'local-api-'));
  try {
    const { app } = createServiceApp({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const template = app.synth().getStackByName(stackName(environment)).template as Template;
    return { assemblyDir: outdir, template, sources: true };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

/** The TypeScript entry (absolute) of a function of lib/api.ts, by its logical id; undefined for another. */
export function sourceOf(logicalId: string): string | undefined {
  const definition = [...operations, authorizer, ...Object.values(eventFunctions)].find(
    (d) => functionLogicalId(d) === logicalId,
  );
  return definition ? join(projectRoot, definition.entry) : undefined;
}

/** The local table name of a table of lib/api.ts, by its logical id, from `names`. @throws for another table */
export function localTableName(names: Record<TableId, string>): (logicalId: string) => string {
  return (logicalId) => {
    const id = (Object.keys(tables) as TableId[]).find((table) => tableLogicalId(table) === logicalId);
    if (!id) throw new Error(`template: table ${logicalId} is not a table of lib/api.ts`);
    return names[id];
  };
}
