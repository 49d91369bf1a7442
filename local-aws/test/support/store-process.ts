/**
 * A process that serves only the embedded DynamoDB on the data folder `STORE_DIR` with the fixture tables
 * (fixture-tables.ts), for crash tests that preload the testing kit's crash hook (testing/crash-hook.ts): prints
 * `ready <endpoint>` once the tables exist, then serves until killed.
 */
import { startDynamoDb } from '../../dynamodb/dynamodb.ts';
import { dynamoDbClient } from '../../testing/test-store.ts';
import { createTestTables } from './fixture-tables.ts';

const db = await startDynamoDb({ dataDir: process.env.STORE_DIR as string });
const client = dynamoDbClient(db.endpoint, db.credentials);
await createTestTables(client);
client.destroy();
process.stdout.write(`ready ${db.endpoint}\n`);
