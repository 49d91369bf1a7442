/** The resumable backfill into the list index layout: docs/operating.md "Upgrading a store to the list index". */
import {
  type AttributeValue,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  paginateScan,
  ResourceNotFoundException,
  UpdateItemCommand,
  UpdateTableCommand,
  waitUntilTableNotExists,
} from '@aws-sdk/client-dynamodb';
import { createTable } from '#lib/admin/tables.ts';
import { listShardOf } from '#lib/inventory/list-shard.ts';
import { listIndex, tables } from '#lib/tables.ts';

/** What a backfill did. */
export interface BackfillResult {
  /** How the index came to exist: already there, created with UpdateTable, or by rebuilding the table. */
  index: 'present' | 'created' | 'rebuilt';
  /** Entries that received their list shard in step 2. */
  updated: number;
}

type Progress = (message: string) => void;

/** The table's description, or undefined when it does not exist. */
async function describe(client: DynamoDBClient, name: string) {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

async function hasActiveIndex(client: DynamoDBClient, name: string): Promise<boolean | undefined> {
  const table = await describe(client, name);
  if (!table) return undefined;
  const index = table.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === listIndex.name);
  return index ? index.IndexStatus === 'ACTIVE' : false;
}

/** Every item of `from` written into `to` with its list shard, in BatchWriteItem requests of 25. */
async function copyTable(
  client: DynamoDBClient,
  from: string,
  to: string,
  progress: Progress,
): Promise<void> {
  let copied = 0;
  for await (const page of paginateScan({ client }, { TableName: from })) {
    const items = (page.Items ?? []).map((item) => ({
      ...item,
      [listIndex.shardAttribute]: { N: String(listShardOf(String(item.petId?.N))) },
    }));
    for (let start = 0; start < items.length; start += 25) {
      let requests: { PutRequest: { Item: Record<string, AttributeValue> } }[] | undefined = items
        .slice(start, start + 25)
        .map((Item) => ({ PutRequest: { Item } }));
      while (requests?.length) {
        const result = await client.send(new BatchWriteItemCommand({ RequestItems: { [to]: requests } }));
        requests = result.UnprocessedItems?.[to] as typeof requests;
      }
    }
    copied += items.length;
    progress(`copied ${copied} entries from ${from} to ${to}`);
  }
}

async function deleteTable(client: DynamoDBClient, name: string): Promise<void> {
  await client.send(new DeleteTableCommand({ TableName: name }));
  await waitUntilTableNotExists(
    { client, maxWaitTime: 300, minDelay: 0.05, maxDelay: 2 },
    { TableName: name },
  );
}

/** Step 1 by copy: the entries into the backup, the table re-created with the index, the entries back. */
async function rebuild(client: DynamoDBClient, name: string, progress: Progress): Promise<void> {
  const backup = `${name}-backfill`;
  const tableIndexed = await hasActiveIndex(client, name);
  if (tableIndexed === false) {
    if (!(await describe(client, backup))) await createTable(client, 'inventory', backup);
    await copyTable(client, name, backup, progress);
    await deleteTable(client, name);
  }
  if (!(await describe(client, name))) await createTable(client, 'inventory', name);
  if (await describe(client, backup)) {
    await copyTable(client, backup, name, progress);
    await deleteTable(client, backup);
  }
}

/**
 * Step 1: makes sure the table has the list index: from its stack when deployed, else UpdateTable, else
 * (dynalite) a rebuild through a copy `<table>-backfill` that holds every entry until the end.
 */
async function ensureIndex(
  client: DynamoDBClient,
  name: string,
  progress: Progress,
  rebuildAllowed: boolean,
) {
  const indexed = await hasActiveIndex(client, name);
  if (indexed) return 'present';
  if (indexed === undefined && !(await describe(client, `${name}-backfill`))) {
    throw new Error(`table ${name} does not exist`);
  }
  if (indexed === false && !rebuildAllowed) {
    throw new Error(`table ${name} has no index ${listIndex.name}: deploy the stack of this version first`);
  }
  if (indexed === false) {
    const definition = tables.inventory.globalIndexes[0];
    progress(`creating the index ${listIndex.name} on ${name}`);
    const created = await client
      .send(
        new UpdateTableCommand({
          TableName: name,
          AttributeDefinitions: [definition.partitionKey, definition.sortKey].map(({ name, type }) => ({
            AttributeName: name,
            AttributeType: type,
          })),
          GlobalSecondaryIndexUpdates: [
            {
              Create: {
                IndexName: definition.name,
                KeySchema: [
                  { AttributeName: definition.partitionKey.name, KeyType: 'HASH' },
                  { AttributeName: definition.sortKey.name, KeyType: 'RANGE' },
                ],
                Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...definition.nonKeyAttributes] },
              },
            },
          ],
        }),
      )
      .then(
        () => true,
        () => false,
      );
    for (let wait = 0; created && wait < 600; wait++) {
      const now = await hasActiveIndex(client, name);
      if (now) return 'created';
      const listed = (await describe(client, name))?.GlobalSecondaryIndexes?.length;
      if (!listed) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  progress(`this DynamoDB cannot add an index to ${name}: rebuilding it through ${name}-backfill`);
  await rebuild(client, name, progress);
  return 'rebuilt';
}

/**
 * Brings the inventory table `name` into the list index layout: the index (step 1), then `listShard` on every
 * entry without it. `local` allows the rebuild: never for a deployed table, which belongs to its stack.
 * @throws when the table does not exist, a deployed one lacks the index, or on DynamoDB errors (a re-run resumes)
 */
export async function backfillListIndex(
  client: DynamoDBClient,
  name: string,
  options: { local: boolean; progress?: Progress },
): Promise<BackfillResult> {
  const progress = options.progress ?? (() => {});
  const index = await ensureIndex(client, name, progress, options.local);
  let updated = 0;
  const pages = paginateScan(
    { client },
    {
      TableName: name,
      ProjectionExpression: 'petId',
      FilterExpression: 'attribute_not_exists(#shard)',
      ExpressionAttributeNames: { '#shard': listIndex.shardAttribute },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      const petId = String(item.petId?.N);
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: name,
            Key: { petId: { N: petId } },
            UpdateExpression: 'SET #shard = :shard',
            ConditionExpression: 'attribute_exists(petId)',
            ExpressionAttributeNames: { '#shard': listIndex.shardAttribute },
            ExpressionAttributeValues: { ':shard': { N: String(listShardOf(petId)) } },
          }),
        );
        updated++;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    progress(`set the list shard of ${updated} entries`);
  }
  return { index, updated };
}
