/**
 * `npm run bench [-- --sizes 1000,10000] [--import 200000] [--low-stock 200000] [--quick] [--only <part>]` (parts:
 * bodies, webhooks, fairness, import, lowStock, rush, writeCost, trims): docs/performance.md "The bench".
 */
import { statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { build } from 'esbuild';
import { functionModel } from 'local-aws';
import { bundleFileName, untrimmedEsbuildOptions } from '#infra/bundling.ts';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { authorizer, eventFunctions, operations } from '#lib/api.ts';
import { localTableName, readStack, synthesize } from '#local/assembly.ts';
import { hasJava } from '#test/support/dynamodb-local.ts';
import { testTableNames } from '#test/support/test-dynamodb.ts';
import { removeTemporaryDirs } from '#test/support/testing-kit.ts';
import { bytesPerKb, checkBudgets, runFigures } from './budgets.ts';
import { bodySizes, measureBodies, measureLoadTimes, measureWarm } from './functions.ts';
import { indented, log } from './processes.ts';
import {
  measureEventPath,
  measureFairness,
  measureListOverHttp,
  measureLowStock,
  measureRush,
  measureWebhookDelays,
  noisyAnswers,
} from './served.ts';
import { measureTrims } from './trims.ts';
import { measureWriteCost, type WriteWay } from './write-cost.ts';

const sizes = (value: string) => value.split(',').map(Number);
const fixed = (value: number, digits = 2) => value.toFixed(digits);
const options = new Command('npm run bench')
  .option('--sizes <entries>', 'list sizes, comma-separated (up to 1000000)', sizes, [1000, 10000, 100000])
  .option('--import <rows>', 'rows imported with the event path off and on', sizes, [200000])
  .option('--low-stock <entries>', 'entries of the lowStock=true list, 1,000 of them low', Number, 200000)
  .option('--quick', 'fewer samples (for trying a change; not figures to quote)')
  .addOption(
    new Option('--only <part>', 'measure one part only').choices([
      'bodies',
      'webhooks',
      'fairness',
      'import',
      'lowStock',
      'rush',
      'writeCost',
      'trims',
    ]),
  )
  .parse()
  .opts<{ sizes: number[]; import: number[]; lowStock: number; quick?: boolean; only?: string }>();
if ([...options.sizes, ...options.import].some((size) => !Number.isInteger(size) || size < 1))
  throw new Error(`--sizes ${options.sizes} --import ${options.import}: whole numbers of entries`);
const { quick = false, only } = options;
const started = performance.now();
log(`${new Date().toISOString()}  ${cpus().length} x ${cpus()[0]?.model}  Node ${process.versions.node}`);
const figures = runFigures();

if (!only || only === 'bodies') {
  const kb = bodySizes.map((size) => `${Math.round(size / 1024)} KB`);
  log(`Hostile write bodies, µs of CPU per KB at ${kb.join(', ')}:`);
  figures.bodies = await measureBodies(quick);
  for (const { operation, kind, usPerKb } of figures.bodies)
    indented(`${operation} ${kind}`.padEnd(28) + usPerKb.map((us) => us.toFixed(1).padStart(9)).join(''));
}
if (!only || only === 'writeCost') {
  const iterations = quick ? 30 : 300;
  log(
    `Each write kind as the service makes it, and as the single-item write it replaced (${iterations} each):`,
  );
  const way = (w?: WriteWay) =>
    w
      ? `${fixed(w.wcu)} WCU ${fixed(w.rcu)} RCU ${fixed(w.requests, 1)} req${w.unreported ? ` (${fixed(w.unreported, 1)} unreported)` : ''} ${fixed(w.p50Ms)} ms`
      : '(the same)';
  for (const store of hasJava() ? (['embedded', 'dynamoDbLocal'] as const) : (['embedded'] as const)) {
    const costs = await measureWriteCost(store, iterations);
    figures.writeCost[store] = costs;
    indented(
      `${store}: after (transactions) | before (single-item writes); per write, p50 of the invocation`,
    );
    for (const { kind, after, before } of costs)
      indented(`  ${kind.padEnd(42)} ${way(after)} | ${way(before)}`);
  }
  if (!hasJava()) indented('dynamoDbLocal: not measured, `java` is not on PATH');
}
const scratch = join(tmpdir(), 'pet-store-bench');
const assemblyDir = join(scratch, 'cdk.out');

/** Every function of the synthesized assembly: its bundle, handler module and production environment. */
async function deployedFunctions() {
  // Production's environment (its log level is INFO; staging's DEBUG logs a line per request) for the budgets.
  const resources = (await readStack(assemblyDir, 'production')).template.Resources;
  const modelOptions = {
    assemblyDir,
    tableName: localTableName(testTableNames),
    overrides: { AWS_REGION: 'us-east-1' },
    // The event functions' queue URLs and bus name: loading a handler only builds its clients.
    resourceValue: (logicalId: string) => `http://127.0.0.1:9/000000000000/${logicalId}`,
  };
  return [...operations, authorizer, ...Object.values(eventFunctions)].map((definition) => {
    const { module, environment } = functionModel(functionLogicalId(definition), resources, modelOptions);
    return { name: definition.name, file: module, entry: definition.entry, environment };
  });
}

if (only !== 'bodies' && only !== 'writeCost') {
  log('Synthesizing the stacks (cdk synth: the deployed bundles and environment)...');
  await synthesize(assemblyDir);
}
try {
  if (!only || only === 'webhooks') {
    log(
      "A healthy subscriber's deliveries at 10 changes/s (npm start --stack staging), ms from each write's answer:",
    );
    for (const hanging of [false, true])
      figures.webhooks.push(await measureWebhookDelays(assemblyDir, hanging, quick ? 5 : 20));
  }
  if (!only || only === 'fairness') {
    const seconds = quick ? 2 : 3;
    log(
      `A healthy endpoint's deliveries at 10 changes/s for ${seconds} s beside noisy endpoints of another key (a fresh npm start each), ms from each write's answer:`,
    );
    figures.fairness.push(await measureFairness(assemblyDir, 'hang', 0, seconds));
    for (const behaviour of Object.keys(noisyAnswers) as (keyof typeof noisyAnswers)[]) {
      for (const noisy of [1, 5, 20])
        figures.fairness.push(await measureFairness(assemblyDir, behaviour, noisy, seconds));
    }
  }
  if (!only) {
    const functions = await deployedFunctions();
    await build(untrimmedEsbuildOptions('bench/baseline-handler.ts', join(scratch, 'baseline')));
    const baseline = { name: 'baseline', file: join(scratch, 'baseline', bundleFileName), environment: {} };
    figures.bundles = functions.map(({ name, file }) => ({ name, kb: statSync(file).size / bytesPerKb }));
    const [rounds, iterations] = quick ? [5, 300] : [20, 3000];
    log(`Load time: ${rounds} fresh processes per bundle; warm: ${iterations} invocations per function...`);
    figures.loads = await measureLoadTimes([baseline, ...functions], rounds);
    figures.warm = await measureWarm(functions, iterations);
    log('List over HTTP (npm start --stack staging on the assembly, without its stream mappings):');
    figures.lists = await measureListOverHttp(assemblyDir, options.sizes, quick ? 2 : 5);
    await removeTemporaryDirs();
  }
  if (!only || only === 'trims') {
    const rounds = quick ? 5 : 20;
    log(
      `What each bundle stand-in saves: KB in each function holding it, load time (${rounds} fresh processes each):`,
    );
    figures.trims = await measureTrims(await deployedFunctions(), join(scratch, 'trims'), rounds);
    for (const { standIn, kbSaved, load } of figures.trims) {
      const kb = kbSaved.map(({ kb }) => kb);
      const range = `${fixed(Math.min(...kb), 1)} to ${fixed(Math.max(...kb), 1)} KB in ${kb.length} functions`;
      const cpu = load
        ? `; ${load.in} load CPU ${fixed(load.cpuMs, 1)} ms, without it ${fixed(load.withoutCpuMs, 1)} ms`
        : '';
      const wall = load ? ` (wall ${fixed(load.wallMs, 1)} / ${fixed(load.withoutWallMs, 1)} ms)` : '';
      indented(`${standIn}: ${range}${cpu}${wall}`);
      const largest = kbSaved.reduce(
        (a, b) => (b.withoutKb > a.withoutKb ? b : a),
        kbSaved[0] ?? { name: '', kb: 0, withoutKb: 0 },
      );
      indented(`  without it the largest bundle it is in: ${largest.name} ${fixed(largest.withoutKb, 1)} KB`);
    }
  }
  if (!only || only === 'lowStock') {
    log('lowStock=true through npm start --stack staging (the index as the consumer keeps it):');
    figures.lowStock = await measureLowStock(assemblyDir, options.lowStock, 1000, quick ? 3 : 10);
  }
  if (!only || only === 'rush') {
    log('A rush, 50 tills selling one unit of one pet at once (npm start --stack staging):');
    figures.rush = await measureRush(assemblyDir, 50, quick ? 3 : 10);
  }
  if (!only || only === 'import') {
    log(
      'The import tool with the event path off and on (npm start --stack staging, a fresh data folder each):',
    );
    for (const rows of options.import) figures.eventPath.push(await measureEventPath(assemblyDir, rows));
  }
} finally {
  await removeTemporaryDirs();
}

log('\n## Budgets');
const checks = checkBudgets(figures);
for (const { name, pass, detail } of checks) log(`${pass ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
const seconds = Math.round((performance.now() - started) / 1000);
log(`\nTotal ${seconds} s. Figures in bench/results.json.`);
const results = { takenAt: new Date().toISOString(), quick, ...figures, checks, seconds };
await writeFile(new URL('results.json', import.meta.url), `${JSON.stringify(results)}\n`);
process.exitCode = checks.every((check) => check.pass) ? 0 : 1;
