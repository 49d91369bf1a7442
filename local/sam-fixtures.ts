/** The data the SAM CLI events expect: docs/local-api.md "A local DynamoDB for the SAM CLI". */
import { readFileSync } from 'node:fs';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { authorizer, eventFunctions, operations } from '#lib/api.ts';
import { apiKeyDigest } from '#lib/auth/api-key.ts';
import { keyStore } from '#lib/auth/key-store.ts';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import { inventoryStore } from '#lib/inventory/store.ts';
import { type TableId, tables } from '#lib/tables.ts';

/**
 * The table names of `sam/env-vars.json`, by table: each read from a function that uses the table.
 * @throws Error when the file names no function using a table
 */
export function samTableNames(): Record<TableId, string> {
  const envVars = JSON.parse(
    readFileSync(new URL('../sam/env-vars.json', import.meta.url), 'utf8'),
  ) as Record<string, Record<string, string>>;
  return Object.fromEntries(
    (Object.keys(tables) as TableId[]).map((id) => {
      const owner = [...operations, authorizer, ...Object.values(eventFunctions)].find(
        (definition) => (definition.access as Partial<Record<TableId, unknown>>)[id],
      );
      const name = owner && envVars[functionLogicalId(owner)]?.[tables[id].env];
      if (!name) throw new Error(`sam/env-vars.json: no function names the ${id} table`);
      return [id, name];
    }),
  ) as Record<TableId, string>;
}

/** The entry that `sam/update-inventory-ok.json` updates and `sam/list-inventory-ok.json` lists. */
export const samPet: InventoryItem = { petId: '9001', quantity: 5, status: 'available' };

/** The petId of `sam/update-inventory-unknown-pet.json`: never seeded, so the update answers 404. */
export const samUnknownPetId = '404404';

/** The bearer token of `sam/authorizer-valid-token.json` (local test value, not a secret). */
export const samApiKey = 'sam-local-events-test-key';

/** The name of {@link samApiKey}: the authorizer's `principalId` for that event. */
export const samApiKeyName = 'sam-local-events';

/**
 * Writes {@link samPet} (replacing any entry with its petId, so its quantity is 5 again) and the key
 * {@link samApiKey} (kept if already there) into the tables `names`.
 * @throws the store's errors when DynamoDB is unreachable or a table is missing
 */
export async function seedSamFixtures(
  client: DynamoDBDocumentClient,
  names: Record<TableId, string>,
): Promise<void> {
  await inventoryStore(client, names.inventory).putMany([samPet]);
  try {
    await keyStore(client, names.apiKeys).put({
      keyDigest: apiKeyDigest(samApiKey),
      name: samApiKeyName,
      createdAt: new Date(0).toISOString(),
    });
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
