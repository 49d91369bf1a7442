/**
 * `npm start`: serves the API at `http://127.0.0.1:3000/v1` (docs/contract.md "Addresses") backed by the
 * embedded DynamoDB. Variables: `PORT` (3000), `HOST` (127.0.0.1), `DATA_DIR` (`.data`; `:memory:` keeps
 * nothing), `API_KEY` (a key to accept; else one is generated on first start and printed once),
 * `AWS_ENDPOINT_URL_DYNAMODB` (use that DynamoDB instead). SIGINT / SIGTERM stop it without losing data.
 * `--watch` (`npm run dev`): a change under functions/ or lib/ reloads the functions' code (function-modules.ts).
 */
import { watchFunctionModules } from './function-modules.ts';
import { startLocalService } from './service.ts';
import { localDataDir } from './settings.ts';

const dataDir = localDataDir();
if (process.argv.includes('--watch')) {
  watchFunctionModules(['functions', 'lib'], (file) =>
    console.log(`Changed: ${file}; the next call loads it.`),
  );
}
const externalDynamoDb = process.env.AWS_ENDPOINT_URL_DYNAMODB;
const service = await startLocalService({
  dataDir,
  port: Number(process.env.PORT || 3000),
  host: process.env.HOST || '127.0.0.1',
  ...(process.env.API_KEY ? { apiKey: process.env.API_KEY } : {}),
}).catch((error: Error) => {
  console.error(`npm start: ${error.message}`);
  process.exit(1);
});

// Before the lines below: a supervisor may send a signal as soon as it reads them.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await service.close();
    console.log('Stopped.');
    process.exit(0);
  });
}

const store = externalDynamoDb ? `DynamoDB at ${externalDynamoDb}` : `data in ${dataDir}`;
console.log(`Pet store inventory API at ${service.baseUrl} (${store})`);
if (service.seeded > 0) console.log(`First start: seeded ${service.seeded} demo entries.`);
if (service.apiKey && !process.env.API_KEY) {
  console.log(`First start: created the API key "local". It is shown once: ${service.apiKey}`);
}
const key = process.env.API_KEY
  ? '$API_KEY'
  : (service.apiKey ?? '<your key: npm run keys -- create <name>>');
console.log(`Try: curl -H 'Authorization: Bearer ${key}' ${service.baseUrl}/inventory`);
