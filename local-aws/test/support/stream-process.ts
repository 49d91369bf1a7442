/**
 * A process serving streamed-template.ts's template (TRIM_HORIZON) on the data folder `STORE_DIR`, its consumer
 * logging to `STREAM_LOG`, for kill tests: on a first start it writes item 1 with the action `throw` (its batch
 * fails and is retried until the process dies), then opens and prints `ready`.
 */
import { tmpdir } from 'node:os';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { testTables } from './fixture-tables.ts';
import { serveStreamed } from './streamed-template.ts';

const { served, client } = await serveStreamed({
  dataDir: process.env.STORE_DIR as string,
  assemblyDir: tmpdir(),
  logFile: process.env.STREAM_LOG as string,
  startingPosition: 'TRIM_HORIZON',
});
await client.send(
  new PutItemCommand({ TableName: testTables.items, Item: { itemId: { N: '1' }, action: { S: 'throw' } } }),
);
client.destroy();
served.open();
process.stdout.write('ready\n');
