/** `npm run bench [-- --sizes 1000,10000] [--quick] [--bodies-only] [--webhooks-only]`: the budgets of docs/performance.md "The bench", PASS/FAIL. */

import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiModel, functionModel, type ModelOptions } from '@pet-store/local-aws';
import { Command } from 'commander';
import { build } from 'esbuild';
import { bundleFileName, untrimmedEsbuildOptions } from '#infra/bundling.ts';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { authorizer, eventFunctions, operations } from '#lib/api.ts';
import { localTableName, readStack, synthesize } from '#local/assembly.ts';
import { localTableNames } from '#local/settings.ts';
import { bodySizes, measureBodies } from './bodies.ts';
import { type BudgetCheck, bytesPerKb, checkBudgets } from './budgets.ts';
import { measureListOverHttp } from './list-http.ts';
import { measureLoadTimes } from './load-time.ts';
import { startBenchDynamoDb } from './processes.ts';
import { measureWarm } from './warm.ts';
import { measureWebhookDelays, type WebhookDelays } from './webhooks.ts';

const options = new Command('npm run bench')
  .option('--sizes <entries>', 'list sizes, comma-separated (up to 1000000)', '1000,10000,100000')
  .option('--quick', 'fewer samples (for trying a change; not figures to quote)')
  .option('--bodies-only', 'only the CPU per KB of hostile write bodies, 1 KB to 5.9 MB')
  .option('--webhooks-only', "only a healthy subscriber's delivery delays, alone and beside a hanging one")
  .parse()
  .opts<{ sizes: string; quick?: boolean; bodiesOnly?: boolean; webhooksOnly?: boolean }>();
const quick = options.quick === true;
const sizes = options.sizes.split(',').map(Number);
if (sizes.some((size) => !Number.isInteger(size) || size < 1)) throw new Error(`--sizes: ${options.sizes}`);

const log = (line = '') => process.stdout.write(`${line}\n`);
const started = performance.now();
log(`${new Date().toISOString()}  ${cpus().length} x ${cpus()[0]?.model}  Node ${process.versions.node}`);
const report = (checks: BudgetCheck[]) => {
  for (const { name, pass, detail } of checks) log(`${pass ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
};

log(
  `Hostile write bodies, µs of CPU per KB at ${bodySizes.map((size) => `${Math.round(size / 1024)} KB`).join(', ')}:`,
);
const bodies = await measureBodies(quick);
for (const { operation, kind, usPerKb } of bodies)
  log(`  ${`${operation} ${kind}`.padEnd(28)}${usPerKb.map((us) => us.toFixed(1).padStart(9)).join('')}`);
const noFigures = { bundles: [], loads: [], warm: [], lists: [], bodies: [], webhooks: [] };
if (options.bodiesOnly) {
  report(checkBudgets({ ...noFigures, bodies }));
  process.exit();
}

const scratch = join(tmpdir(), 'pet-store-bench');
const assemblyDir = join(scratch, 'cdk.out');
log('Synthesizing the stacks (cdk synth: the deployed bundles and environment)...');
await synthesize(assemblyDir);
log(
  "A healthy subscriber's deliveries at 10 changes/s (npm start --stack staging), ms from each write's answer:",
);
const webhooks: WebhookDelays[] = [];
for (const hanging of [false, true]) {
  const delays = await measureWebhookDelays(assemblyDir, hanging, quick ? 5 : 20);
  webhooks.push(delays);
  const { changes, delivered, p50Ms, p99Ms, maxMs } = delays;
  log(
    `  ${hanging ? 'beside a hanging endpoint' : 'alone'.padEnd(25)}  ${delivered} of ${changes} delivered, p50 ${p50Ms}, p99 ${p99Ms}, max ${maxMs}`,
  );
}
if (options.webhooksOnly) {
  report(checkBudgets({ ...noFigures, webhooks }));
  process.exit();
}
// Production's environment (its log level is INFO; staging's DEBUG logs a line per request) for the budgets.
const stack = await readStack(assemblyDir, 'production');
const db = await startBenchDynamoDb();
const modelOptions: ModelOptions = {
  assemblyDir,
  tableName: localTableName(localTableNames()),
  overrides: { AWS_ENDPOINT_URL_DYNAMODB: db.endpoint, ...db.credentials },
  // The event functions' queue URLs and bus name: loading a handler only builds its clients.
  resourceValue: (logicalId) => `http://127.0.0.1:9/000000000000/${logicalId}`,
};
const model = apiModel(stack.template, modelOptions);
/** Every function of the stack by name: its bundle and the environment the stack gives it. */
const functions = [...operations, authorizer, ...Object.values(eventFunctions)].map((definition) => {
  const logicalId = functionLogicalId(definition);
  const fn = model.functions[logicalId] ?? functionModel(logicalId, stack.template.Resources, modelOptions);
  return { name: definition.name, file: fn.module, environment: fn.environment };
});
const baselineOut = join(scratch, 'baseline');
await build(untrimmedEsbuildOptions('bench/baseline-handler.ts', baselineOut));
const baseline = { name: 'baseline', file: join(baselineOut, bundleFileName), environment: {} };

const bundles = functions.map(({ name, file }) => ({ name, kb: statSync(file).size / bytesPerKb }));
const [rounds, iterations] = quick ? [5, 300] : [20, 3000];
log(`Load time: ${rounds} fresh processes per bundle; warm: ${iterations} invocations per function...`);
let loads: Awaited<ReturnType<typeof measureLoadTimes>>;
let warm: Awaited<ReturnType<typeof measureWarm>>;
try {
  loads = await measureLoadTimes([baseline, ...functions], rounds);
  warm = await measureWarm({ functions, iterations, warmup: iterations / 10 });
} finally {
  await db.close();
}

log('List over HTTP (npm start --stack staging on the assembly):');
const lists = await measureListOverHttp({ assemblyDir, sizes, runs: quick ? 2 : 5 }, (line) =>
  log(`  ${line}`),
);

log('\n## Budgets');
const figures = { bundles, loads, warm, lists, bodies, webhooks };
const checks = checkBudgets(figures);
report(checks);
const seconds = Math.round((performance.now() - started) / 1000);
log(`\nTotal ${seconds} s. Figures in bench/results.json.`);
const results = { takenAt: new Date().toISOString(), quick, ...figures, checks, seconds };
await writeFile(new URL('results.json', import.meta.url), `${JSON.stringify(results)}\n`);
process.exitCode = checks.every((check) => check.pass) ? 0 : 1;
