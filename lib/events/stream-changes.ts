/**
 * The change record of one DynamoDB stream record (new and old images): docs/architecture.md "Change records",
 * docs/contract.md "History and events".
 */
import { type NativeAttributeValue, unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { PetStatus } from '../inventory/inventory-item.ts';
import type { ChangeReason } from '../inventory/last-change.ts';
import { isLow, type LowStockState } from '../inventory/low-stock.ts';
import type { Order, OrderStatus } from '../orders/order.ts';
import { lowStockIndex } from '../tables.ts';
import { type InventoryChange, type LowStock, type OrderChange, wholeSeconds } from './changes.ts';

/** An image's attributes with numbers as exact decimal text (int64 petId and orderId stay exact). */
type Image = Record<string, NativeAttributeValue>;

/** The attributes of a stream image, numbers as their decimal text; undefined when the record has none. */
function image(attributes: Record<string, AttributeValue> | undefined): Image | undefined {
  if (attributes === undefined) return undefined;
  // The Lambda event's AttributeValue is the SDK's shape (both follow DynamoDB's JSON).
  return unmarshall(attributes as Parameters<typeof unmarshall>[0], { wrapNumbers: (text) => text });
}

/** A Number attribute's decimal text, or undefined. */
function text(value: NativeAttributeValue): string | undefined {
  return value === undefined || value === null ? undefined : String(value);
}

/**
 * When the change occurred: the item's `changedAt` (RFC 3339 UTC with milliseconds, the writer's clock), else
 * (an item written before it existed) the record's `ApproximateCreationDateTime` (epoch seconds).
 */
function occurredAt(item: Image, record: DynamoDBRecord): string {
  if (typeof item.changedAt === 'string') return item.changedAt;
  return new Date((record.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000).toISOString();
}

/** The reasons that name an order (`orderId` goes with them only). */
const orderReasons: readonly ChangeReason[] = ['order_placed', 'order_cancelled'];

/**
 * The inventory change of a stream record of the inventory table, without its `sequence` (the consumer numbers
 * a pet's changes): an INSERT (`from` null), or a MODIFY whose `quantity` or `status` differs. A MODIFY that
 * changes neither, a REMOVE, or a record without the images is no change (undefined). An item without
 * `reason` (written before the attribute existed) is `created` when inserted, else `adjustment`.
 */
export function inventoryChangeOf(record: DynamoDBRecord): Omit<InventoryChange, 'sequence'> | undefined {
  const after = image(record.dynamodb?.NewImage);
  const before = image(record.dynamodb?.OldImage);
  if (after === undefined) return undefined;
  if (record.eventName === 'MODIFY') {
    if (before === undefined) return undefined;
    if (text(before.quantity) === text(after.quantity) && before.status === after.status) return undefined;
  } else if (record.eventName !== 'INSERT') {
    return undefined;
  }
  const inserted = record.eventName === 'INSERT';
  const reason = (after.reason ?? (inserted ? 'created' : 'adjustment')) as ChangeReason;
  const orderId = orderReasons.includes(reason) ? text(after.orderId) : undefined;
  return {
    petId: text(after.petId) as string,
    occurredAt: occurredAt(after, record),
    reason,
    quantity: {
      from: inserted || before === undefined ? null : Number(before.quantity),
      to: Number(after.quantity),
    },
    status: {
      from: inserted || before === undefined ? null : (before.status as PetStatus),
      to: after.status as PetStatus,
    },
    ...(orderId === undefined ? {} : { orderId }),
    ...(typeof after.keyId === 'string' ? { keyId: after.keyId } : {}),
  };
}

/** Whether an image's entry is low (`quantity <= reorderPoint`); an absent image is not. */
function lowIn(item: Image | undefined): boolean {
  const point = text(item?.reorderPoint);
  return item !== undefined && isLow(Number(item.quantity), point === undefined ? undefined : Number(point));
}

/**
 * The crossing of a stream record of the inventory table into low stock, without its `sequence` (the consumer
 * knows the pet's records): the entry is low in the new image and was not in the old one (an INSERT: not low
 * before), whether its quantity fell or its reorder point rose; with the timestamp of its event (the change's
 * `occurredAt` in whole seconds). Any other record: undefined.
 */
export function lowStockOf(
  record: DynamoDBRecord,
): { data: Omit<LowStock, 'sequence'>; timestamp: string } | undefined {
  if (record.eventName !== 'INSERT' && record.eventName !== 'MODIFY') return undefined;
  const after = image(record.dynamodb?.NewImage);
  const before = image(record.dynamodb?.OldImage);
  if (after === undefined || !lowIn(after) || lowIn(before)) return undefined;
  return {
    data: {
      petId: text(after.petId) as string,
      quantity: Number(after.quantity),
      reorderPoint: Number(after.reorderPoint),
    },
    timestamp: wholeSeconds(occurredAt(after, record)),
  };
}

/**
 * The low-stock index state of the entry a stream record of the inventory table leaves (lib/inventory/low-stock.ts);
 * undefined for a removed entry or a record without its new image.
 */
export function lowStockStateOf(record: DynamoDBRecord): LowStockState | undefined {
  const after = image(record.dynamodb?.NewImage);
  if (after === undefined || record.eventName === 'REMOVE') return undefined;
  return {
    petId: text(after.petId) as string,
    low: lowIn(after),
    indexed: after[lowStockIndex.shardAttribute] !== undefined,
  };
}

/** The Order of an orders item image (ids as decimal text). */
function orderOfImage(item: Image): Order {
  return {
    id: text(item.orderId) as string,
    petId: text(item.petId) as string,
    quantity: Number(item.quantity),
    ...(typeof item.shipDate === 'string' ? { shipDate: item.shipDate } : {}),
    status: item.status as OrderStatus,
    complete: item.complete === true,
  };
}

/**
 * The order change of a stream record of the orders table: an INSERT (placed, `status.from` null) or a MODIFY
 * whose `status` differs; any other record is no change (undefined).
 */
export function orderChangeOf(record: DynamoDBRecord): OrderChange | undefined {
  const after = image(record.dynamodb?.NewImage);
  const before = image(record.dynamodb?.OldImage);
  if (after === undefined) return undefined;
  if (record.eventName === 'MODIFY') {
    if (before === undefined || before.status === after.status) return undefined;
  } else if (record.eventName !== 'INSERT') {
    return undefined;
  }
  const inserted = record.eventName === 'INSERT';
  const order = orderOfImage(after);
  return {
    orderId: order.id,
    occurredAt: occurredAt(after, record),
    status: {
      from: inserted || before === undefined ? null : (before.status as OrderStatus),
      to: order.status,
    },
    order,
    ...(typeof after.keyId === 'string' ? { keyId: after.keyId } : {}),
  };
}
