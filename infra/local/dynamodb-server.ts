/**
 * `npm run sam:dynamodb [-- --port 8000 --host 127.0.0.1 --data-dir .data]`: serves the embedded DynamoDB
 * alone, for functions run by the SAM CLI (`sam local invoke`, `sam local start-api`), with the tables of
 * `events/env-vars.json` created and the fixtures of the SAM events seeded (infra/sam-fixtures.ts).
 *
 * Defaults: port 8000, host 127.0.0.1 (use `--host 0.0.0.0` when the SAM containers reach the host through the
 * Docker bridge, e.g. `host.docker.internal` on Linux: that exposes an unauthenticated database to the
 * network), data folder `DATA_DIR` or `.data` (shared with `npm start`, one process at a time; `:memory:`
 * keeps nothing). The key and import tools reach it through the folder's endpoint file. Table names: the
 * `INVENTORY_TABLE_NAME` / `API_KEYS_TABLE_NAME` variables, else `pet-store-inventory` / `pet-store-api-keys`.
 * SIGINT / SIGTERM stop it without losing data.
 */
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { seedSamFixtures } from '../sam-fixtures.ts';
import { ensureTables, localTableNames, startDynamoDb } from './dynamodb.ts';
import { localAwsDefaults, localDataDir } from './settings.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8000' },
    host: { type: 'string', default: '127.0.0.1' },
    'data-dir': { type: 'string', default: localDataDir() },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  throw new Error(`--port: not a port: ${values.port}`);

localAwsDefaults();
const db = await startDynamoDb({ dataDir: values['data-dir'], port, host: values.host });
const client = new DynamoDBClient({ endpoint: db.endpoint });
const names = localTableNames();
await ensureTables(client, names);
await seedSamFixtures(DynamoDBDocumentClient.from(client), names);
client.destroy();

// Before the lines below: a supervisor may send a signal as soon as it reads them.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await db.close();
    console.log('Stopped.');
    process.exit(0);
  });
}

console.log(`DynamoDB for the SAM CLI at ${db.endpoint} (data in ${values['data-dir']})`);
console.log(`Tables: ${names.inventory}, ${names.apiKeys}; SAM event fixtures seeded.`);
