/**
 * A process that serves only the embedded DynamoDB on the data folder `DATA_DIR` with the test tables
 * (test/support/test-dynamodb.ts `testTableNames`), for crash tests that preload test/support/crash-hook.ts:
 * prints `ready <endpoint>` once the tables exist, then serves until killed.
 */

import { startDynamoDb } from '@pet-store/local-aws';
import { ensureTables } from '#lib/admin/tables.ts';
import { dynamoDbClient, testTableNames } from './test-dynamodb.ts';

const db = await startDynamoDb({ dataDir: process.env.DATA_DIR as string });
const client = dynamoDbClient(db.endpoint, db.credentials);
await ensureTables(client, testTableNames);
client.destroy();
process.stdout.write(`ready ${db.endpoint}\n`);
