/**
 * The change records' consumer: a batch of DynamoDB stream records of the inventory and orders tables becomes
 * numbered inventory changes, written once into the history table, and events on the bus. docs/architecture.md
 * "Change records".
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { indexLowStock, type LowStockState } from '../inventory/low-stock.ts';
import { publishChanges } from './bus.ts';
import type { ChangeEvent, InventoryChange } from './changes.ts';
import { appendEvents } from './event-append.ts';
import {
  putChange,
  putFirstChanges,
  type RecentChanges,
  recentChanges,
  withoutHistory,
} from './history-store.ts';
import { inventoryChangeOf, lowStockOf, lowStockStateOf, orderChangeOf } from './stream-changes.ts';

/** Where the consumer reads and writes. */
export interface RecorderTargets {
  dynamoDb: DynamoDBDocumentClient;
  eventBridge: EventBridgeClient;
  /** The inventory table's name (its low-stock index attribute: lib/inventory/low-stock.ts). */
  inventoryTable: string;
  /** The history table's name. */
  historyTable: string;
  /** The events feed's table name (listEvents). */
  eventsTable: string;
  /** The event bus's name. */
  busName: string;
}

/** What one batch did: events published, history records written. */
export interface RecordedBatch {
  published: number;
  written: number;
}

/** An inventory change numbered for the history, with the stream record it came from. */
interface NumberedChange {
  change: InventoryChange;
  streamSequence: string;
}

/**
 * The sequence of a pet's newest record before a batch: one below the lowest record the batch already wrote
 * (`since`, gap-free), else the newest record's, else 0.
 */
function sequenceBefore({ newest, since }: RecentChanges): number {
  const written = [...since.values()].map(({ sequence }) => sequence);
  return written.length > 0 ? Math.min(...written) - 1 : (newest?.sequence ?? 0);
}

/** The partition key of a stream record's item: `petId` (inventory) or `orderId` (orders); undefined otherwise. */
function tableOf(record: DynamoDBRecord): 'inventory' | 'orders' | undefined {
  const keys = record.dynamodb?.Keys ?? {};
  if ('petId' in keys) return 'inventory';
  if ('orderId' in keys) return 'orders';
  return undefined;
}

/**
 * The consumer over `targets`: for a batch of stream records (in stream order; each item's records in the order
 * of its modifications), numbers each pet's new inventory changes from the pet's newest history record + 1,
 * writes them, each pet's one after the other in sequence order (PutItem, `attribute_not_exists(sequence)`),
 * pets in parallel (the one record of a pet that had none, as an import's, in BatchWriteItems), and only then
 * publishes, in stream order (PutEvents, 10 per request), every order change and every inventory change of the
 * batch that the history holds: the ones just written and those an earlier attempt wrote (a record whose
 * `SequenceNumber` is not above the newest record's `streamSequence`), read back with their sequence. Before
 * publishing it appends every one of those events to the events feed, once per id (lib/events/event-append.ts).
 * Each record that makes an entry low (lib/events/stream-changes.ts `lowStockOf`) adds an `inventory.low_stock`
 * event after its change's, carrying the pet's sequence at that record; its id follows from its data, so a retry
 * derives the same event. Last, each entry's low-stock index attribute follows its newest image
 * (lib/inventory/low-stock.ts `indexLowStock`).
 * A retried batch therefore publishes the same event ids again (at least once), never writes a record or
 * appends an event twice or leaves a gap, and an event id names only a written record, so a change lost after
 * the stream's retries never shares its id with a later one. docs/architecture.md "Change records" and "The
 * events feed".
 * @throws on any failure (a refused event, a DynamoDB error, a taken sequence), after the pets' writes under way
 *   have settled; nothing is appended or published when a write failed, nothing published when an append failed. The event source mapping retries the batch (or its
 *   halves).
 */
export function changeRecorder(
  targets: RecorderTargets,
): (records: readonly DynamoDBRecord[]) => Promise<RecordedBatch> {
  const { dynamoDb, eventBridge, inventoryTable, historyTable, eventsTable, busName } = targets;
  return async (records) => {
    // Each entry's state after the batch, for the low-stock index: the last record of each pet wins.
    const lowStockStates = new Map<string, LowStockState>();
    const candidates = records.map((record) => {
      const streamSequence = record.dynamodb?.SequenceNumber ?? '';
      const table = tableOf(record);
      if (table === 'inventory') {
        const state = lowStockStateOf(record);
        if (state) lowStockStates.set(state.petId, state);
        return { streamSequence, inventory: inventoryChangeOf(record), lowStock: lowStockOf(record) };
      }
      if (table === 'orders') return { streamSequence, order: orderChangeOf(record) };
      return { streamSequence };
    });
    // Each pet's first record in the batch that changes it or makes it low (whether it created the item), and
    // its number of change records there.
    const firsts = new Map<string, { streamSequence: string; count: number; insert: boolean }>();
    for (const [at, { streamSequence, inventory, lowStock }] of candidates.entries()) {
      const petId = inventory?.petId ?? lowStock?.data.petId;
      if (petId === undefined) continue;
      const seen = firsts.get(petId);
      firsts.set(petId, {
        streamSequence: seen?.streamSequence ?? streamSequence,
        count: (seen?.count ?? 0) + (inventory ? 1 : 0),
        insert: seen?.insert ?? records[at]?.eventName === 'INSERT',
      });
    }
    // A new item's pet has usually no record yet: one BatchGetItem tells, rather than a Query per pet.
    const inserted = [...firsts].filter(([, { insert }]) => insert).map(([petId]) => petId);
    const fresh = await withoutHistory(dynamoDb, historyTable, inserted);
    const recent = new Map(
      await Promise.all(
        [...firsts].map(async ([petId, { streamSequence, count }]) => {
          if (fresh.has(petId)) return [petId, { since: new Map() } as RecentChanges] as const;
          return [
            petId,
            await recentChanges(dynamoDb, historyTable, petId, streamSequence, count + 1),
          ] as const;
        }),
      ),
    );
    // Each pet's sequence at the record being numbered: a low-stock event carries the newest one.
    const current = new Map([...recent].map(([petId, pet]) => [petId, sequenceBefore(pet)]));
    const events: ChangeEvent[] = [];
    const writes = new Map<string, NumberedChange[]>();
    /** The change event of an inventory change (numbered, or as an earlier attempt wrote it); none if lost. */
    const changeEvent = (inventory: Omit<InventoryChange, 'sequence'>, streamSequence: string) => {
      const pet = recent.get(inventory.petId) as RecentChanges;
      const last = pet.newest;
      if (last && BigInt(streamSequence) <= BigInt(last.streamSequence)) {
        // Written by an earlier attempt: published again as written (its publication may not have happened).
        const written = pet.since.get(streamSequence);
        return written && { type: 'inventory.changed' as const, data: written };
      }
      const { petId, occurredAt, reason, quantity, status, orderId, keyId } = inventory;
      const sequence = (last?.sequence ?? 0) + 1;
      // Members in the contract's order: the event's JSON and the API's body list them so.
      const change: InventoryChange = {
        sequence,
        petId,
        occurredAt,
        reason,
        quantity,
        status,
        ...(orderId === undefined ? {} : { orderId }),
        ...(keyId === undefined ? {} : { keyId }),
      };
      pet.newest = { sequence, streamSequence };
      writes.set(petId, [...(writes.get(petId) ?? []), { change, streamSequence }]);
      return { type: 'inventory.changed' as const, data: change };
    };
    for (const { streamSequence, inventory, order, lowStock } of candidates) {
      if (order) events.push({ type: 'order.changed', data: order });
      const changed = inventory && changeEvent(inventory, streamSequence);
      if (changed) {
        events.push(changed);
        current.set(changed.data.petId, changed.data.sequence);
      }
      if (lowStock) {
        const sequence = current.get(lowStock.data.petId) as number;
        events.push({
          type: 'inventory.low_stock',
          data: { ...lowStock.data, sequence },
          timestamp: lowStock.timestamp,
        });
      }
    }
    // A pet without records and with one change here (an import's new pet): its first record goes in a batch.
    const first = (petId: string, changes: NumberedChange[]) => fresh.has(petId) && changes.length === 1;
    const outcomes = await Promise.allSettled([
      putFirstChanges(
        dynamoDb,
        historyTable,
        [...writes].flatMap(([id, all]) => (first(id, all) ? all : [])),
      ),
      ...[...writes]
        .filter(([petId, changes]) => !first(petId, changes))
        .map(async ([, changes]) => {
          for (const { change, streamSequence } of changes) {
            await putChange(dynamoDb, historyTable, change, streamSequence);
          }
        }),
    ]);
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    await appendEvents(dynamoDb, eventsTable, events);
    await publishChanges(eventBridge, busName, events);
    await indexLowStock(dynamoDb, inventoryTable, [...lowStockStates.values()]);
    return { published: events.length, written: [...writes.values()].flat().length };
  };
}
