/**
 * `npm run bench`: cold start and cost figures of the three functions, checked against the budgets
 * (bench/budgets.ts). Prints tables, writes `bench/results.json`, exits 1 when a budget fails.
 *
 * Sections, each in its own module: bundle sizes (bundles.ts), module load time in fresh processes
 * (load-time.ts), warm latency, DynamoDB requests and keep-alive in-process (warm.ts), list scaling over
 * HTTP through `npm start` (list-http.ts). `--sizes 1000,10000` picks the list sizes (default up to 1,000,000). `--quick` runs every section with fewer samples (for trying a change; its figures are
 * not the ones to quote). Takes about 2 minutes on 2 cores.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { type BudgetCheck, checkBudgets } from './budgets.ts';
import {
  baselineName,
  buildAllBundles,
  buildAllUntrimmedBundles,
  trimmedBaselineName,
  untrimmedSuffix,
} from './bundles.ts';
import { onDemandPrices, operationCosts } from './cost.ts';
import { startDynamoServer } from './dynamo-server.ts';
import { functionEnv } from './function-env.ts';
import { type ListStep, measureListOverHttp } from './list-http.ts';
import { measureLoadTimes } from './load-time.ts';
import { describeMachine } from './machine.ts';
import {
  budgetLines,
  bundleTable,
  costTable,
  listTable,
  loadTable,
  machineLine,
  trimsTable,
  warmTable,
} from './report.ts';
import { measureWarm } from './warm.ts';

/** Where the figures are written (gitignored). */
const resultsFile = fileURLToPath(new URL('results.json', import.meta.url));

const quick = process.argv.includes('--quick');
const sizesArgument = process.argv[process.argv.indexOf('--sizes') + 1];
const sizes = process.argv.includes('--sizes') ? sizesArgument?.split(',').map(Number) : undefined;

/** Sample counts: the full run, or `--quick`. */
const settings = {
  /** Fresh processes per bundle (and per NODE_OPTIONS variant). */
  loadRounds: quick ? 5 : 20,
  /** `NODE_OPTIONS` of the deployed functions (infra/service-function.ts). */
  deployedNodeOptions: '--enable-source-maps',
  warmIterations: quick ? 300 : 3000,
  warmup: quick ? 50 : 300,
  lists: [
    { entries: 1000, runs: quick ? 5 : 30 },
    { entries: 10000, runs: quick ? 3 : 10 },
    { entries: 100000, runs: quick ? 1 : 5 },
    { entries: 1000000, runs: quick ? 1 : 3 },
  ].filter((step) => sizes === undefined || sizes.includes(step.entries)) satisfies ListStep[],
};

const log = (line = '') => process.stdout.write(`${line}\n`);
const started = performance.now();
const machine = describeMachine();
log(`${machineLine(machine)}${quick ? '  [--quick: fewer samples]' : ''}`);

log('\n## Bundle size (minified, deployed esbuild settings of infra/bundling.ts)');
const bundles = await buildAllBundles();
log(bundleTable(bundles));
const untrimmed = await buildAllUntrimmedBundles();

log(`\n## Module load time (ms, ${settings.loadRounds} fresh Node processes per bundle, interleaved)`);
const db = await startDynamoServer();
let loadDeployed: Awaited<ReturnType<typeof measureLoadTimes>>;
let loadNoMaps: typeof loadDeployed;
let loadUntrimmed: typeof loadDeployed;
let warm: Awaited<ReturnType<typeof measureWarm>>;
try {
  const env = functionEnv(db.endpoint);
  const loadAll = await measureLoadTimes(
    [...bundles, ...untrimmed],
    env,
    settings.loadRounds,
    settings.deployedNodeOptions,
  );
  loadDeployed = loadAll.filter((l) => !l.name.endsWith(untrimmedSuffix));
  loadUntrimmed = loadAll.filter((l) => l.name.endsWith(untrimmedSuffix));
  loadNoMaps = await measureLoadTimes(bundles, env, settings.loadRounds, '');
  log(loadTable(loadDeployed, loadNoMaps, baselineName, trimmedBaselineName));
  log(
    `(import of the bundle, ms: CPU = user + system time, wall = clock; NODE_OPTIONS=${settings.deployedNodeOptions}` +
      ' as deployed; "no maps": without it; process: the whole child, Node start-up included. ratio: to' +
      ` "${baselineName}", the naive SDK client alone (bench/baseline-handler.ts, same esbuild settings without` +
      ` the service's trims), the budget's baseline; trimmed baseline ratio: to "${trimmedBaselineName}", the` +
      ' same handler with the trims, for information)',
  );

  log('\n## What the trims buy (bundleAliases of infra/bundling.ts; untrimmed: same settings without them)');
  const byName = (name: string) => {
    const found = [...bundles, ...untrimmed].find((b) => b.name === name);
    if (!found) throw new Error(`no bundle ${name}`);
    return found;
  };
  log(
    trimsTable(
      [
        ...bundles
          .filter((b) => b.name !== baselineName && b.name !== trimmedBaselineName)
          .map((b) => ({ label: b.name, trimmed: b, untrimmed: byName(`${b.name}${untrimmedSuffix}`) })),
        { label: 'baseline', trimmed: byName(trimmedBaselineName), untrimmed: byName(baselineName) },
      ],
      [...loadDeployed, ...loadUntrimmed],
    ),
  );

  log(`\n## Warm latency (ms, ${settings.warmIterations} invocations each, in-process, embedded DynamoDB)`);
  warm = await measureWarm({
    endpoint: db.endpoint,
    iterations: settings.warmIterations,
    warmup: settings.warmup,
  });
  log(warmTable(warm));
  log(
    '(ratio: handler / bare SDK call; capacity: units DynamoDB reported for one invocation; conns/100: TCP' +
      ' connections opened in 100 invocations; alone: the handler with the client answering at once)',
  );
} finally {
  await db.close();
}

log(
  '\n## List over HTTP (npm start as its own process; medians; raw: the sorted index read of the same data)',
);
const lists = await measureListOverHttp(settings.lists, (line) => log(`  ${line}`));
log(listTable(lists));
log(
  "(peak +MB: growth of the server's peak resident set during one list; RRU: read units of one list's Queries)",
);

const costs = operationCosts(warm, lists);
log(
  `\n## DynamoDB cost per 1,000 requests (on-demand; USD at ${onDemandPrices.rru} per million RRU, ${onDemandPrices.wru} per million WRU)`,
);
log(costTable(costs));

const checks: BudgetCheck[] = checkBudgets({
  bundles,
  baselineName,
  trimmedBaselineName,
  loadTimes: loadDeployed,
  warm,
  lists,
});
log('\n## Budgets');
log(budgetLines(checks));
const durationMs = performance.now() - started;
log(`\nTotal ${Math.round(durationMs / 1000)} s. Figures written to bench/results.json.`);

await writeFile(
  resultsFile,
  `${JSON.stringify(
    {
      takenAt: new Date().toISOString(),
      quick,
      machine,
      settings,
      bundles: bundles.map(({ file: _file, ...rest }) => rest),
      untrimmedBundles: untrimmed.map(({ file: _file, ...rest }) => rest),
      loadTime: { deployed: loadDeployed, withoutSourceMaps: loadNoMaps, untrimmed: loadUntrimmed },
      warm,
      lists,
      costs,
      budgets: checks,
      durationMs,
    },
    null,
    2,
  )}\n`,
);
process.exitCode = checks.every((c) => c.pass) ? 0 : 1;
