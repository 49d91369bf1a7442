/**
 * functions/record-changes invoked directly with DynamoDB stream events against a real DynamoDB API (in-memory
 * dynalite) and a stand-in for EventBridge's PutEvents: docs/contract.md "History and events",
 * docs/architecture.md "Change records". The records are those of the service's own writes (lib/ stores: addPet,
 * updateInventory, placeOrder, updateOrder, the import), each table's items compared before and after.
 */
import { DeleteItemCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { startTestStore, type TestStore } from 'local-aws/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { toDocumentClient } from '#lib/clients/document-client.ts';
import { historyJson } from '#lib/events/change-json.ts';
import { changeEventId } from '#lib/events/changes.ts';
import { historyPage } from '#lib/events/history-store.ts';
import { putEntries } from '#lib/inventory/batch-put.ts';
import { updateEntry } from '#lib/inventory/entry-store.ts';
import { listShardOf } from '#lib/inventory/list-shard.ts';
import { orderPlacement, orderStore } from '#lib/orders/store.ts';
import { orderTransition } from '#lib/orders/transitions.ts';
import { petStore } from '#lib/pets/store.ts';
import { type FaultProxy, startFaultProxy } from '#test/support/dynamodb-fault-proxy.ts';
import { type EventBusStandIn, startEventBusStandIn } from '#test/support/event-bus-stand-in.ts';
import { inventoryRecord, type RawItem, scanTable } from '#test/support/raw-tables.ts';
import { type StreamRecorder, streamRecorder } from '#test/support/stream-records.ts';
import { serviceTables, setFunctionEnvironment, testTableNames } from '#test/support/test-dynamodb.ts';

type Handler = (event: DynamoDBStreamEvent) => Promise<void>;
/** Who made a change, as its history item and event name them. */
type By = { orderId?: string; keyId?: string };

let db: TestStore;
let proxy: FaultProxy;
let bus: EventBusStandIn;
let handler: Handler;
let stream: StreamRecorder;

const busName = 'pet-store-test-bus';
/** The API key id of every write through the API in these tests. */
const keyId = '0123456789ab';

beforeAll(async () => {
  db = await startTestStore({ tables: serviceTables });
  proxy = await startFaultProxy(db.endpoint);
  bus = await startEventBusStandIn();
  // The function reaches DynamoDB through the fault proxy, the bus through the stand-in.
  setFunctionEnvironment(proxy.endpoint, db.credentials);
  process.env.INVENTORY_TABLE_NAME = testTableNames.inventory;
  process.env.INVENTORY_HISTORY_TABLE_NAME = testTableNames.inventoryHistory;
  process.env.EVENTS_TABLE_NAME = testTableNames.events;
  process.env.EVENT_BUS_NAME = busName;
  process.env.AWS_ENDPOINT_URL_EVENTBRIDGE = bus.endpoint;
  handler = (await import('#functions/record-changes/handler.ts')).handler;
  stream = streamRecorder(db.client, [
    { name: testTableNames.inventory, key: 'petId' },
    { name: testTableNames.orders, key: 'orderId' },
  ]);
});

afterAll(async () => {
  vi.useRealTimers();
  await bus?.close();
  await proxy?.close();
  await db?.close();
});

beforeEach(() => {
  bus.received = [];
  bus.calls = 0;
  bus.refuse = () => false;
  proxy.restore();
  proxy.operations = [];
});

/** The writers of the service, on the test DynamoDB directly. */
const writers = () => {
  const client = toDocumentClient(db.client);
  const orders = orderStore(client, testTableNames.orders);
  return {
    pets: petStore(client, testTableNames.inventory),
    update: (petId: string, change: Parameters<typeof updateEntry>[3]) =>
      updateEntry(client, testTableNames.inventory, petId, change),
    place: orderPlacement(
      client,
      testTableNames.inventory,
      testTableNames.orders,
      testTableNames.idempotency,
    ),
    move: orderTransition(client, orders, {
      inventory: testTableNames.inventory,
      orders: testTableNames.orders,
    }),
    import: (items: Parameters<typeof putEntries>[2]) => putEntries(client, testTableNames.inventory, items),
  };
};

/** The consumer's batch of `records`. */
const batch = (records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });

/** The history table's items as stored, a pet's in sequence order. */
async function history(): Promise<RawItem[]> {
  const items = await scanTable(db.client, testTableNames.inventoryHistory);
  return items.sort((a, b) =>
    a.petId?.N === b.petId?.N
      ? Number(a.sequence?.N) - Number(b.sequence?.N)
      : Number(BigInt(a.petId?.N ?? 0) - BigInt(b.petId?.N ?? 0)),
  );
}

/** The id members of a record's JSON, exact numbers there: read back as their decimal text, as the types hold them. */
const idMembers = new Set(['petId', 'orderId', 'id']);

/** The events received by the bus, their details parsed (ids as their exact decimal text). */
const published = () =>
  bus.received.map(({ EventBusName, Source, DetailType, Detail }) => ({
    EventBusName,
    Source,
    DetailType,
    detail: JSON.parse(Detail ?? 'null', (key, value, context?: { source?: string }) =>
      idMembers.has(key) && typeof value === 'number' ? context?.source : value,
    ) as Record<string, unknown>,
  }));

/** The event ids of what the bus received, in order. */
const publishedIds = () =>
  published().map(({ DetailType, detail }) =>
    changeEventId({ type: DetailType, data: detail } as unknown as Parameters<typeof changeEventId>[0]),
  );

/** A history item as the consumer stores it. */
function historyItem(
  petId: string,
  sequence: number,
  streamSequence: string | undefined,
  change: {
    occurredAt: string;
    reason: string;
    quantity: [number | null, number];
    status: [string | null, string];
    orderId?: string;
    keyId?: string;
  },
): RawItem {
  const fromTo = ([from, to]: [number | string | null, number | string], type: 'N' | 'S') => ({
    M: {
      from: from === null ? { NULL: true } : type === 'N' ? { N: String(from) } : { S: String(from) },
      to: type === 'N' ? { N: String(to) } : { S: String(to) },
    },
  });
  return {
    petId: { N: petId },
    sequence: { N: String(sequence) },
    streamSequence: { S: streamSequence ?? '' },
    occurredAt: { S: change.occurredAt },
    reason: { S: change.reason },
    quantity: fromTo(change.quantity, 'N'),
    status: fromTo(change.status, 'S'),
    ...(change.orderId === undefined ? {} : { orderId: { N: change.orderId } }),
    ...(change.keyId === undefined ? {} : { keyId: { S: change.keyId } }),
  };
}

/** The clock of the writers: one second later at each call, from a whole second near now. */
function steppedClock(): () => string {
  let now = Math.floor(Date.now() / 1000) * 1000;
  vi.useFakeTimers({ toFake: ['Date'] });
  return () => {
    now += 1000;
    vi.setSystemTime(now);
    return new Date(now).toISOString();
  };
}

describe('the records of the service writes', () => {
  test('addPet, PATCHes, an order and its cancellation and an import make the pet history 1..5 and its events, in two batches', async () => {
    const write = writers();
    const tick = steppedClock();
    const t1 = tick();
    const added = await stream.capture(() =>
      write.pets.add(
        { id: '9223372036854775807', name: 'Rex', photoUrls: [], tags: [], status: 'available' },
        keyId,
      ),
    );
    const t2 = tick();
    const arrival = await stream.capture(() =>
      write.update('9223372036854775807', { quantity: 10, reason: 'arrival', keyId }),
    );
    const t3 = tick();
    let orderId = '';
    const placed = await stream.capture(async () => {
      const order = await write.place({ petId: '9223372036854775807', quantity: 3 }, undefined, keyId);
      orderId = (order as { id: string }).id;
    });
    const t4 = tick();
    const cancelled = await stream.capture(() => write.move(orderId, 'cancelled', keyId));
    tick();
    const sameValues = await stream.capture(() =>
      write.import([{ petId: '9223372036854775807', quantity: 10, status: 'available' }]),
    );
    const t6 = tick();
    const imported = await stream.capture(() =>
      write.import([{ petId: '9223372036854775807', quantity: 12, status: 'pending' }]),
    );
    vi.useRealTimers();
    // Each write is one record per item it changed: the order's two writes also change the orders table.
    expect(
      [added, arrival, placed, cancelled, sameValues, imported].map((records) => records.length),
    ).toEqual([1, 1, 2, 2, 1, 1]);
    expect(placed.map((record) => record.eventName)).toEqual(['MODIFY', 'INSERT']);

    await handler(batch([...added, ...arrival, ...placed]));
    await handler(batch([...cancelled, ...sameValues, ...imported]));

    const petId = '9223372036854775807';
    const seq = (records: DynamoDBRecord[], index = 0) => records[index]?.dynamodb?.SequenceNumber;
    // The five inventory changes: their records, occurredAt, reason, quantity and status [from, to], who.
    const changes: [
      DynamoDBRecord[],
      string,
      string,
      [number | null, number],
      [string | null, string],
      By,
    ][] = [
      [added, t1, 'created', [null, 0], [null, 'available'], { keyId }],
      [arrival, t2, 'arrival', [0, 10], ['available', 'available'], { keyId }],
      [placed, t3, 'order_placed', [10, 7], ['available', 'available'], { orderId, keyId }],
      [cancelled, t4, 'order_cancelled', [7, 10], ['available', 'available'], { orderId, keyId }],
      [imported, t6, 'import', [10, 12], ['available', 'pending'], {}],
    ];
    // The history holds them as sequences 1..5, each with its stream record's sequence number.
    expect(await history()).toStrictEqual(
      changes.map(([records, occurredAt, reason, quantity, status, by], index) =>
        historyItem(petId, index + 1, seq(records), { occurredAt, reason, quantity, status, ...by }),
      ),
    );

    const order = { id: orderId, petId, quantity: 3 };
    /** The inventory.changed event of changes[sequence - 1]. */
    const inventoryEvent = (sequence: number) => {
      const [, occurredAt, reason, quantity, status, by] = changes[sequence - 1] ?? [];
      const fromTo = ([from, to]: [unknown, unknown] = [undefined, undefined]) => ({ from, to });
      return {
        EventBusName: busName,
        Source: 'pet-store',
        DetailType: 'inventory.changed',
        detail: {
          sequence,
          petId,
          occurredAt,
          reason,
          quantity: fromTo(quantity),
          status: fromTo(status),
          ...by,
        },
      };
    };
    const orderEvent = (occurredAt: string, from: string | null, to: string) => ({
      EventBusName: busName,
      Source: 'pet-store',
      DetailType: 'order.changed',
      detail: {
        orderId,
        occurredAt,
        status: { from, to },
        order: { ...order, status: to, complete: false },
        keyId,
      },
    });
    expect(published()).toStrictEqual([
      inventoryEvent(1),
      inventoryEvent(2),
      inventoryEvent(3),
      orderEvent(t3, null, 'placed'),
      inventoryEvent(4),
      orderEvent(t4, 'placed', 'cancelled'),
      inventoryEvent(5),
    ]);
    // The members of each event in the contract's order.
    expect(Object.keys(JSON.parse(bus.received[2]?.Detail ?? '{}'))).toEqual([
      'sequence',
      'petId',
      'occurredAt',
      'reason',
      'quantity',
      'status',
      'orderId',
      'keyId',
    ]);
    // Orders are published, never stored in the history.
    expect((await history()).map((item) => item.petId?.N)).toEqual([petId, petId, petId, petId, petId]);
  });

  test('a PATCH that changes neither quantity nor status, and a removed item, are no change', async () => {
    const write = writers();
    const added = await stream.capture(() =>
      write.pets.add({ id: '31', photoUrls: [], tags: [], status: 'sold' }, keyId),
    );
    const same = await stream.capture(() => write.update('31', { quantity: 0, reason: 'return', keyId }));
    const removed = await stream.capture(() =>
      db.client.send(
        new DeleteItemCommand({ TableName: testTableNames.inventory, Key: { petId: { N: '31' } } }),
      ),
    );
    expect([...same, ...removed].map((record) => record.eventName)).toEqual(['MODIFY', 'REMOVE']);

    await handler(batch([...added, ...same, ...removed]));

    expect(
      (await history()).filter((item) => item.petId?.N === '31').map((item) => item.sequence?.N),
    ).toEqual(['1']);
    expect(publishedIds()).toEqual(['inventory.31.1']);
  });

  test('an import of new pets asks the history once (BatchGetItem) and writes their first records in one BatchWriteItem, not a request per pet; a pet added again continues its numbering', async () => {
    const write = writers();
    const again = await changesOf('33', 2);
    await handler(batch(again));
    await db.client.send(
      new DeleteItemCommand({ TableName: testTableNames.inventory, Key: { petId: { N: '33' } } }),
    );
    const items = ['33', '34', '35', '36'].map((petId) => ({
      petId,
      quantity: 5,
      status: 'available' as const,
    }));
    const imported = await stream.capture(() => write.import(items));
    expect(imported.map((record) => record.eventName)).toEqual(['INSERT', 'INSERT', 'INSERT', 'INSERT']);
    proxy.operations = [];

    await handler(batch(imported));

    const history = ['BatchGetItem', 'Query', 'BatchWriteItem', 'PutItem'];
    const calls = proxy.operations.filter((operation) => history.includes(operation)).sort();
    // The pet 33 has records: its newest is read by a Query, its record written by a conditional PutItem.
    expect(calls).toEqual(['BatchGetItem', 'BatchWriteItem', 'PutItem', 'Query']);
    expect(await sequencesOf('33')).toEqual(['1', '2', '3']);
    for (const petId of ['34', '35', '36']) expect(await sequencesOf(petId)).toEqual(['1']);
  });

  test('items written before the change attributes: INSERT is created, MODIFY adjustment, at the record time', async () => {
    const inserted = stream.record('INSERT', 'petId', undefined, inventoryRecord('32', 4, 'available'));
    const modified = stream.record(
      'MODIFY',
      'petId',
      inventoryRecord('32', 4, 'available'),
      inventoryRecord('32', 2, 'sold'),
    );
    const time = (record: DynamoDBRecord) =>
      new Date((record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000).toISOString();

    await handler(batch([inserted, modified]));

    expect(published().map(({ detail }) => detail)).toStrictEqual([
      {
        sequence: 1,
        petId: '32',
        occurredAt: time(inserted),
        reason: 'created',
        quantity: { from: null, to: 4 },
        status: { from: null, to: 'available' },
      },
      {
        sequence: 2,
        petId: '32',
        occurredAt: time(modified),
        reason: 'adjustment',
        quantity: { from: 4, to: 2 },
        status: { from: 'available', to: 'sold' },
      },
    ]);
  });
});

/** `count` changes of the new pet `petId` (addPet, then PATCHes of its quantity 1, 2, ...), as records. */
async function changesOf(petId: string, count: number): Promise<DynamoDBRecord[]> {
  const write = writers();
  const records = await stream.capture(() =>
    write.pets.add({ id: petId, photoUrls: [], tags: [], status: 'available' }, keyId),
  );
  for (let quantity = 1; quantity < count; quantity++) {
    records.push(
      ...(await stream.capture(() => write.update(petId, { quantity, reason: 'arrival', keyId }))),
    );
  }
  return records;
}

/** The sequences of the history of `petId`, in order. */
async function sequencesOf(petId: string): Promise<string[]> {
  return (await history()).filter((item) => item.petId?.N === petId).map((item) => item.sequence?.N ?? '');
}

/** The event ids `inventory.<petId>.<from..to>`. */
/** The events feed's items of `petId` (its inventory log, by position): each event's id and its data's JSON text. */
async function feedOf(petId: string): Promise<[string, string][]> {
  const items = await scanTable(db.client, testTableNames.events);
  return items
    .filter((item) => item.id?.S?.startsWith(`inventory.${petId}.`))
    .sort((a, b) => Number(BigInt(a.position?.N ?? 0) - BigInt(b.position?.N ?? 0)))
    .map((item) => [item.id?.S as string, item.data?.S as string]);
}

const idsOf = (petId: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, index) => `inventory.${petId}.${from + index}`);

describe('exactly once, gap-free', () => {
  test('sequences continue from the newest record across batches', async () => {
    const records = await changesOf('41', 5);

    await handler(batch(records.slice(0, 2)));
    await handler(batch(records.slice(2)));

    expect(await sequencesOf('41')).toEqual(['1', '2', '3', '4', '5']);
    expect(publishedIds()).toEqual(idsOf('41', 1, 5));
  });

  test('a batch replayed after it was written writes nothing again and publishes the same events again', async () => {
    const records = await changesOf('42', 3);
    await handler(batch(records));
    const written = await history();
    const first = published();

    await handler(batch(records));

    expect(await history()).toStrictEqual(written);
    expect(publishedIds()).toEqual([...idsOf('42', 1, 3), ...idsOf('42', 1, 3)]);
    expect(published().slice(3)).toStrictEqual(first);
  });

  test('a bus that fails on the second PutEvents call: every record written once, and the retry publishes them all with the same event ids', async () => {
    const records = await changesOf('43', 12);
    bus.refuse = (call) => call >= 2;
    const twelve = Array.from({ length: 12 }, (_, index) => String(index + 1));

    await expect(handler(batch(records))).rejects.toThrow();
    expect(await sequencesOf('43')).toEqual(twelve);
    expect(publishedIds()).toEqual(idsOf('43', 1, 10));

    bus.refuse = () => false;
    await handler(batch(records));

    expect(await sequencesOf('43')).toEqual(twelve);
    // The first ten published twice (at least once), with the same ids; each record written once.
    expect(publishedIds()).toEqual([...idsOf('43', 1, 10), ...idsOf('43', 1, 12)]);
    expect(
      (await history()).filter((item) => item.petId?.N === '43').map((item) => item.streamSequence?.S),
    ).toEqual(records.map((record) => record.dynamodb?.SequenceNumber));
  });

  test('the events feed gets every published event once, as the bus carried it, even when the bus fails and the batch is retried', async () => {
    const records = await changesOf('61', 12);
    bus.refuse = (call) => call >= 2;
    await expect(handler(batch(records))).rejects.toThrow();
    // Appended before publishing: all twelve are in the feed though two never reached the bus.
    expect(await feedOf('61')).toEqual(idsOf('61', 1, 12).map((id) => [id, expect.any(String)]));

    bus.refuse = () => false;
    await handler(batch(records));
    await handler(batch(records));
    const feed = await feedOf('61');
    expect(feed.map(([id]) => id)).toEqual(idsOf('61', 1, 12));
    // Each as the bus carried it: the same id names the same data, digit for digit.
    const details = new Map(bus.received.map((entry, index) => [publishedIds()[index], entry.Detail]));
    for (const [id, data] of feed) expect(data).toBe(details.get(id));
  });

  test('a history write that fails half-way: nothing published; the retry writes the rest once, gap-free, and publishes every record', async () => {
    const records = await changesOf('44', 6);
    const putItems = () => proxy.operations.filter((operation) => operation === 'PutItem').length;
    proxy.fault = (operation) => (operation === 'PutItem' && putItems() > 2 ? 'error' : 'pass');

    await expect(handler(batch(records))).rejects.toThrow();
    expect(await sequencesOf('44')).toEqual(['1', '2']);
    expect(publishedIds()).toEqual([]);

    proxy.restore();
    await handler(batch(records));

    expect(await sequencesOf('44')).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(publishedIds()).toEqual(idsOf('44', 1, 6));
    const stored = (await history()).filter((item) => item.petId?.N === '44');
    expect(stored.map((item) => item.quantity?.M?.to?.N)).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(stored.map((item) => item.streamSequence?.S)).toEqual(
      records.map((record) => record.dynamodb?.SequenceNumber),
    );
  });

  test('a batch whose history writes fail publishes nothing, not even its order changes; the retry writes each record once and publishes all', async () => {
    const write = writers();
    const records = await changesOf('47', 2);
    let orderId = '';
    records.push(
      ...(await stream.capture(async () => {
        const order = await write.place({ petId: '47', quantity: 1 }, undefined, keyId);
        orderId = (order as { id: string }).id;
      })),
    );
    proxy.fault = (operation) => (operation === 'PutItem' ? 'error' : 'pass');

    await expect(handler(batch(records))).rejects.toThrow();
    expect(await sequencesOf('47')).toEqual([]);
    expect(publishedIds()).toEqual([]);

    proxy.restore();
    await handler(batch(records));

    expect(publishedIds()).toEqual([...idsOf('47', 1, 3), `order.${orderId}.placed`]);
    expect(await sequencesOf('47')).toEqual(['1', '2', '3']);
  });

  test('two pets in one batch are numbered each from its own newest record', async () => {
    const first = await changesOf('45', 2);
    const second = await changesOf('46', 3);
    await handler(batch(first.slice(0, 1)));

    await handler(batch([first[1], second[0], second[1], second[2]] as DynamoDBRecord[]));

    expect(await sequencesOf('45')).toEqual(['1', '2']);
    expect(await sequencesOf('46')).toEqual(['1', '2', '3']);
    expect(publishedIds()).toEqual(['inventory.45.1', 'inventory.45.2', ...idsOf('46', 1, 3)]);
  });
});

/** Each published event id with the distinct contents (detail JSON) it was published with. */
function contentsById(): Map<string, Set<string>> {
  const contents = new Map<string, Set<string>>();
  for (const [at, id] of publishedIds().entries()) {
    const seen = contents.get(id) ?? new Set<string>();
    seen.add(JSON.stringify(published()[at]?.detail));
    contents.set(id, seen);
  }
  return contents;
}

describe('low stock (docs/contract.md "Inventory semantics": reorder points)', () => {
  /** The PATCHes of pet `petId` as stream records: each body an EntryChange without its reason and key. */
  async function patches(petId: string, changes: { quantity?: number; reorderPoint?: number | null }[]) {
    const write = writers();
    const records = await stream.capture(() =>
      write.pets.add({ id: petId, photoUrls: [], tags: [], status: 'available' }, keyId),
    );
    for (const change of changes) {
      records.push(
        ...(await stream.capture(() => write.update(petId, { ...change, reason: 'sale', keyId }))),
      );
    }
    return records;
  }

  /** The entry's stored low-stock index attribute (undefined when absent). */
  const lowShardOf = async (petId: string) =>
    (await scanTable(db.client, testTableNames.inventory)).find((item) => item.petId?.N === petId)?.lowShard
      ?.N;

  test('one inventory.low_stock per crossing: down through the point, not further down nor up, down again to it, and the point raised above the stock; the index attribute follows', async () => {
    const records = await patches('71', [
      { quantity: 10 },
      { reorderPoint: 5 },
      { quantity: 5 },
      { quantity: 3 },
      { quantity: 8 },
      { quantity: 5 },
      { quantity: 9 },
      { reorderPoint: 10 },
    ]);

    await handler(batch(records));

    expect(publishedIds()).toEqual([
      'inventory.71.1',
      'inventory.71.2',
      'inventory.71.3',
      'inventory_low_stock.71.3.5',
      'inventory.71.4',
      'inventory.71.5',
      'inventory.71.6',
      'inventory_low_stock.71.6.5',
      'inventory.71.7',
      'inventory_low_stock.71.7.10',
    ]);
    const lowStock = published().filter(({ DetailType }) => DetailType === 'inventory.low_stock');
    expect(lowStock.map(({ detail }) => detail)).toEqual([
      { petId: '71', quantity: 5, reorderPoint: 5, sequence: 3 },
      { petId: '71', quantity: 5, reorderPoint: 5, sequence: 6 },
      { petId: '71', quantity: 9, reorderPoint: 10, sequence: 7 },
    ]);
    expect(await lowShardOf('71')).toBe(String(listShardOf('71')));

    const raised = await patches('72', [{ quantity: 4, reorderPoint: 4 }]);
    const cleared = await stream.capture(() =>
      writers().update('71', { reorderPoint: null, reason: 'adjustment', keyId }),
    );
    bus.received = [];
    await handler(batch([...raised, ...cleared]));
    expect(publishedIds()).toEqual(['inventory.72.1', 'inventory.72.2', 'inventory_low_stock.72.2.4']);
    expect(await lowShardOf('71')).toBeUndefined();
    expect(await lowShardOf('72')).toBe(String(listShardOf('72')));
  });

  test('a replayed batch publishes the same low-stock event id again and the events feed holds it once', async () => {
    const records = await patches('73', [{ quantity: 5 }, { reorderPoint: 2 }, { quantity: 1 }]);
    await handler(batch(records));
    await handler(batch(records));

    const once = ['inventory.73.1', 'inventory.73.2', 'inventory.73.3', 'inventory_low_stock.73.3.2'];
    expect(publishedIds()).toEqual([...once, ...once]);
    const feed = (await scanTable(db.client, testTableNames.events)).filter(
      (item) => item.id?.S === 'inventory_low_stock.73.3.2',
    );
    expect(feed.map((item) => item.data?.S)).toEqual([
      '{"petId":73,"quantity":1,"reorderPoint":2,"sequence":3}',
    ]);
  });
});

describe('no hidden loss, no reused event id (docs/contract.md "History and events")', () => {
  test('a batch given up after its retries (every history write fails) publishes nothing; the next change takes the next sequence, shows the break, and no event id is published with two contents', async () => {
    const write = writers();
    const records = await changesOf('48', 2);
    await handler(batch(records));
    const lost = await stream.capture(() => write.update('48', { quantity: 7, reason: 'arrival', keyId }));
    proxy.fault = (operation) => (operation === 'PutItem' ? 'error' : 'pass');
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(handler(batch(lost))).rejects.toThrow();
    }
    proxy.restore();
    // The stream mapping gives the batch up (its records expired): the next change comes.
    const next = await stream.capture(() => write.update('48', { quantity: 3, reason: 'return', keyId }));

    await handler(batch(next));

    expect(await sequencesOf('48')).toEqual(['1', '2', '3']);
    const third = (await history()).find((item) => item.petId?.N === '48' && item.sequence?.N === '3');
    expect(third?.quantity?.M).toStrictEqual({ from: { N: '7' }, to: { N: '3' } });
    expect(publishedIds()).toEqual(idsOf('48', 1, 3));
    expect([...contentsById().values()].every((contents) => contents.size === 1)).toBe(true);
    expect(published()[2]?.detail).toMatchObject({ sequence: 3, quantity: { from: 7, to: 3 } });
  });

  test('history writes that fail a few times then heal lose nothing and duplicate nothing', async () => {
    const records = await changesOf('49', 4);
    let failures = 0;
    proxy.fault = (operation) => (operation === 'PutItem' && failures++ < 3 ? 'error' : 'pass');
    let attempts = 0;
    for (;;) {
      attempts += 1;
      try {
        await handler(batch(records));
        break;
      } catch {
        expect(attempts).toBeLessThan(10);
      }
    }

    expect(await sequencesOf('49')).toEqual(['1', '2', '3', '4']);
    expect(
      (await history()).filter((item) => item.petId?.N === '49').map((item) => item.streamSequence?.S),
    ).toEqual(records.map((record) => record.dynamodb?.SequenceNumber));
    expect([...new Set(publishedIds())]).toEqual(idsOf('49', 1, 4));
    expect([...contentsById().values()].every((contents) => contents.size === 1)).toBe(true);
  });
});

describe('historyPage (listInventoryHistory reads what the consumer wrote)', () => {
  test('newest first in pages of limit, the cursor continuing below the last sequence, no cursor after the last page', async () => {
    await handler(batch(await changesOf('51', 5)));
    const client = toDocumentClient(db.client);
    const page = (limit: number, cursor?: string) =>
      historyPage(client, testTableNames.inventoryHistory, '51', {
        limit,
        ...(cursor === undefined ? {} : { cursor }),
      });

    const first = await page(2);
    const second = await page(2, first.next);
    const last = await page(2, second.next);

    expect(first.items.map((change) => change.sequence)).toEqual([5, 4]);
    expect(first.next).toBe('4');
    expect(second.items.map((change) => change.sequence)).toEqual([3, 2]);
    expect(second.next).toBe('2');
    expect(last).toStrictEqual({ items: [expect.objectContaining({ sequence: 1 })] });
    expect((await page(5)).next).toBeUndefined();
    expect(await page(1000, '1')).toStrictEqual({ items: [] });
    expect(await historyPage(client, testTableNames.inventoryHistory, '52', { limit: 100 })).toStrictEqual({
      items: [],
    });
  });

  test('a change reads back as it was published: members in the contract order, orderId and keyId only when present', async () => {
    const write = writers();
    const records = await stream.capture(() =>
      write.pets.add({ id: '-9223372036854775808', photoUrls: [], tags: [], status: 'pending' }, keyId),
    );
    records.push(
      ...(await stream.capture(() =>
        write.import([{ petId: '-9223372036854775808', quantity: 3, status: 'available' }]),
      )),
    );
    await handler(batch(records));

    const { items } = await historyPage(
      toDocumentClient(db.client),
      testTableNames.inventoryHistory,
      '-9223372036854775808',
      { limit: 10 },
    );

    expect(JSON.stringify(items)).toBe(
      JSON.stringify([...published()].reverse().map(({ detail }) => detail)),
    );
    // The event's JSON writes the id digit for digit, a number as every answer of the API does.
    expect(historyJson(items)).toBe(
      `[${[...bus.received]
        .reverse()
        .map(({ Detail }) => Detail)
        .join(',')}]`,
    );
    expect(bus.received[0]?.Detail).toContain('"petId":-9223372036854775808,');
    expect(items.map((change) => Object.keys(change))).toEqual([
      ['sequence', 'petId', 'occurredAt', 'reason', 'quantity', 'status'],
      ['sequence', 'petId', 'occurredAt', 'reason', 'quantity', 'status', 'keyId'],
    ]);
  });
});
