/**
 * The inventory store: the operations the service needs on the inventory table, one module per operation
 * (docs/architecture.md "Data layout").
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClaimedWrite } from '../idempotency/claim.ts';
import { putEntries } from './batch-put.ts';
import type { IfMatch } from './entity-tag.ts';
import { getEntries } from './entries-by-id.ts';
import { type EntryChange, getInventoryItem, type UpdateResult, updateEntry } from './entry-store.ts';
import type { InventoryItem } from './inventory-item.ts';
import { type ListOptions, listSorted } from './list-merge.ts';
import type { PetDetails } from './pet-details.ts';

/** What the handlers and the import tool need from the inventory table. */
export interface InventoryStore {
  /** The entries in petId order, in batches (`list-merge.ts`: the merge of the list index's shards). */
  listSorted(options?: ListOptions): AsyncGenerator<InventoryItem[]>;
  /** One entry with a strongly consistent GetItem, or undefined when there is none (`entry-store.ts`). */
  get(petId: string): Promise<InventoryItem | undefined>;
  /** The entries of up to 100 distinct petIds that exist, sorted by petId, by BatchGetItem (`entries-by-id.ts`). */
  getMany(petIds: readonly string[]): Promise<InventoryItem[]>;
  /**
   * Sets (or adjusts) the quantity, the status or both of an existing entry in one conditional write committed once, with
   * the Idempotency-Key's claim when `keyed`, never creating one (`entry-store.ts`).
   */
  update(petId: string, change: EntryChange, ifMatch?: IfMatch, keyed?: ClaimedWrite): Promise<UpdateResult>;
  /**
   * Writes entries (create or replace) with their pet details in BatchWriteItem requests (`batch-put.ts`).
   * @throws IncompleteWriteError (saying how many of `items` were written) when DynamoDB still fails.
   */
  putMany(items: readonly (InventoryItem & { details?: PetDetails })[]): Promise<void>;
}

/** The store over `client` and the table `tableName`. */
export function inventoryStore(client: DynamoDBDocumentClient, tableName: string): InventoryStore {
  return {
    listSorted: (options) => listSorted(client, tableName, options),
    get: (petId) => getInventoryItem(client, tableName, petId),
    getMany: (petIds) => getEntries(client, tableName, petIds),
    update: (petId, change, ifMatch, keyed) => updateEntry(client, tableName, petId, change, ifMatch, keyed),
    putMany: (items) => putEntries(client, tableName, items),
  };
}
