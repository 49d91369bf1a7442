/** The service's tables (lib/tables.ts) on any DynamoDB endpoint: their key schema, and creating them. */
import {
  CreateTableCommand,
  type DynamoDBClient,
  ListTablesCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { type TableDefinition, type TableId, tables } from '#lib/tables.ts';

/**
 * Creates each missing table (on-demand, partition key and global secondary indexes from lib/api.ts) and
 * waits until it is active.
 * @returns the ids of the tables it created (empty when all existed).
 */
export async function ensureTables(
  client: DynamoDBClient,
  names: Partial<Record<TableId, string>>,
): Promise<TableId[]> {
  const existing = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    for (const name of page.TableNames ?? []) existing.add(name);
    start = page.LastEvaluatedTableName;
  } while (start);
  const created: TableId[] = [];
  for (const id of (Object.keys(tables) as TableId[]).filter((table) => names[table] !== undefined)) {
    const name = names[id] as string;
    if (existing.has(name)) continue;
    await createTable(client, id, name);
    created.push(id);
  }
  return created;
}

/**
 * The keys of table `id` (lib/tables.ts) in the shape of DynamoDB's CreateTable and of CloudFormation's
 * `AWS::DynamoDB::Table`: attribute definitions, partition and sort keys, global secondary indexes (INCLUDE projections).
 */
export function tableKeySchema(id: TableId) {
  const { partitionKey, sortKey, globalIndexes } = tables[id] as TableDefinition;
  const keys = [
    partitionKey,
    ...(sortKey ? [sortKey] : []),
    ...globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return {
    AttributeDefinitions: [...new Map(keys.map((key) => [key.name, key.type]))].map(
      ([AttributeName, AttributeType]) => ({ AttributeName, AttributeType }),
    ),
    KeySchema: [
      { AttributeName: partitionKey.name, KeyType: 'HASH' as const },
      ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
    ],

    ...(globalIndexes.length > 0 && {
      GlobalSecondaryIndexes: globalIndexes.map((index) => ({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
          { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
        ],
        Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.nonKeyAttributes] },
      })),
    }),
  };
}

/** Creates the table `id` of lib/tables.ts (on-demand, {@link tableKeySchema}) as `name` and waits until it is active. */
export async function createTable(client: DynamoDBClient, id: TableId, name: string): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      ...tableKeySchema(id),
      ...((tables[id] as TableDefinition).stream && {
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    }),
  );
  // Polls after 50 ms, backing off to 1 s: with the SDK's default delays (20 s to 120 s, for real
  // DynamoDB) a local table still CREATING at the first check would stall the start by the first delay.
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 0.05, maxDelay: 1 }, { TableName: name });
}
