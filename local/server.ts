/** `npm start [-- --stack staging|production [--assembly <dir>]]`: docs/local-api.md "Settings". */

import { Command, Option } from 'commander';
import { watchFunctionModules } from 'local-aws';
import { environments } from '#infra/settings.ts';
import { readStack, type ServedStack, synthesize, synthesizeForSources } from './assembly.ts';
import { startLocalService } from './service.ts';
import { localDataDir } from './settings.ts';
import { startProgress } from './start-progress.ts';

const {
  stack: environment,
  assembly,
  watch,
} = new Command('npm start')
  .description('Serves the pet store API locally from a synthesized stack.')
  .addOption(
    new Option('--stack <environment>', 'serve this stack as `cdk synth` produces it').choices(
      Object.keys(environments),
    ),
  )
  .option('--assembly <dir>', 'with --stack: serve this cloud assembly (cdk.out folder) without synthesizing')
  .option('--watch', 'give the functions fresh execution environments when functions/ or lib/ changes')
  .parse()
  .opts<{ stack?: 'staging' | 'production'; assembly?: string; watch?: boolean }>();

async function servedStack(): Promise<ServedStack> {
  if (!environment) {
    if (assembly) throw new Error('--assembly needs --stack');
    return synthesizeForSources('staging');
  }
  if (assembly) return readStack(assembly, environment);
  await synthesize('cdk.out');
  return readStack('cdk.out', environment);
}

const dataDir = localDataDir();
// The functions log at INFO unless asked for more (docs/local-api.md "Settings": POWERTOOLS_LOG_LEVEL=DEBUG).
process.env.POWERTOOLS_LOG_LEVEL ||= 'INFO';
const keyRate = process.env.API_KEY_RATE;
if (keyRate !== undefined && !/^[1-9][0-9]{0,8}$/.test(keyRate)) {
  console.error(`npm start: API_KEY_RATE must be a whole number of requests per second >= 1, not ${keyRate}`);
  process.exit(1);
}
const externalDynamoDb = process.env.AWS_ENDPOINT_URL_DYNAMODB;
const progress = startProgress();
const service = await startLocalService({
  stack: await progress
    .step(environment ? `reading the ${environment} stack` : 'synthesizing the stack', servedStack)
    .catch((error: Error) => {
      console.error(`npm start: ${error.message}`);
      process.exit(1);
    }),
  dataDir,
  port: Number(process.env.PORT || 3000),
  host: process.env.HOST || '127.0.0.1',
  ...(process.env.API_KEY ? { apiKey: process.env.API_KEY } : {}),
  ...(keyRate ? { keyThrottle: { rateLimit: Number(keyRate), burstLimit: 2 * Number(keyRate) } } : {}),
  step: progress.step,
}).catch((error: Error) => {
  console.error(`npm start: ${error.message}`);
  process.exit(1);
});

if (watch) {
  await watchFunctionModules(['functions', 'lib'], (file) => {
    service.recycle();
    console.log(`Changed: ${file}; the next call loads it.`);
  });
}

/** The longest a shutdown may take (docs/contract.md "Bounded cost, clean shutdown"): the 29 s drain, then 1 s. */
const shutdownLimitMs = 30_000;

// Before the lines below: a supervisor may send a signal as soon as it reads them.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    setTimeout(() => {
      console.error('npm start: the shutdown took 30 s; exiting without waiting further');
      process.exit(1);
    }, shutdownLimitMs).unref();
    await service.close();
    console.log('Stopped.');
    process.exit(0);
  });
}

/** `value` as one word of a POSIX shell: single-quoted, each `'` written as `'\\''`. */
const shellWord = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

progress.done();
const store = externalDynamoDb ? `DynamoDB at ${externalDynamoDb}` : `data in ${dataDir}`;
console.log(`Pet store inventory API at ${service.baseUrl} (${store})`);
console.log(`API reference: ${new URL('/docs', service.baseUrl).href}`);
if (service.seeded > 0) console.log(`First start: seeded ${service.seeded} demo entries.`);
if (service.apiKey && !process.env.API_KEY) {
  // The data folder is private to its user (docs/local-api.md "The data folder"): its key is shown every start.
  console.log(
    `${service.firstStart ? 'First start: created the API key "local"' : 'API key "local"'}: ${service.apiKey}`,
  );
  console.log(`Try: curl -H 'Authorization: Bearer ${service.apiKey}' ${service.baseUrl}/inventory`);
} else {
  if (!process.env.API_KEY) {
    // The key tool finds this store as the server did: the same DATA_DIR, or the same external DynamoDB.
    const located = [
      ...(process.env.DATA_DIR ? [`DATA_DIR=${shellWord(process.env.DATA_DIR)}`] : []),
      ...(externalDynamoDb ? [`AWS_ENDPOINT_URL_DYNAMODB=${shellWord(externalDynamoDb)}`] : []),
    ];
    console.log(
      'The key "local" cannot be shown (revoked, expired, or not kept by this store). To make a key, run:',
    );
    console.log(`  KEY=$(${[...located, 'npm run --silent keys -- create mine'].join(' ')})`);
  }
  console.log(
    `Try: curl -H "Authorization: Bearer $${process.env.API_KEY ? 'API_KEY' : 'KEY'}" ${service.baseUrl}/inventory`,
  );
}
