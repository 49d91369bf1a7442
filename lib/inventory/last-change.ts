/** The last change an inventory item records with its values: docs/architecture.md "Data layout". */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { InventoryReason } from './inventory-update.ts';

/**
 * Why an entry last changed (docs/contract.md "History and events" `reason`): a PATCH's reason, an order placed
 * or cancelled, `created` (addPet) or `import` (the import tool and the local seeding).
 */
export type ChangeReason = InventoryReason | 'created' | 'order_placed' | 'order_cancelled' | 'import';

/**
 * The last change of an entry: why, by which API key (its id), for which order (the order reasons only), by
 * which request. The item also records when (`changedAt`, {@link changeTime}), set by the functions below.
 */
export interface LastChange {
  reason: ChangeReason;
  /** The API key's id (lib/auth/api-key.ts `keyIdOf`) from the authorizer's context; absent: none known. */
  keyId?: string;
  orderId?: string;
  /**
   * A keyed batch's token (lib/inventory/batch-update.ts `batchRequestToken`): the batch's retry after its
   * function died finds its own write by it (docs/architecture.md "Writes exactly once"). No other writer
   * records one.
   */
  requestToken?: string;
}

/** The time of a change as items record it (`changedAt`): RFC 3339, UTC, milliseconds, the writer's clock. */
export function changeTime(now: Date = new Date()): string {
  return now.toISOString();
}

/** The parts of an UpdateExpression that record a {@link LastChange}, with placeholders prefixed `#lc` / `:lc`. */
export interface LastChangeUpdate {
  /** `SET` actions, without the keyword. */
  set: string[];
  /** `REMOVE` actions: the attributes this change does not have, so none is left from an older change. */
  remove: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

/**
 * The attributes that record `change` on an item written whole (PutItem): `reason`, `keyId`, `requestToken`
 * (Strings), `orderId` (Number), `changedAt` (String, {@link changeTime}); absent members are not written.
 */
export function lastChangeAttributes(change: LastChange, now?: Date): Record<string, unknown> {
  const { reason, keyId, orderId, requestToken } = change;
  return {
    reason,
    ...(keyId === undefined ? {} : { keyId }),
    // orderId is a Number, as in the orders table (an int64: exact as a NumberValue).
    ...(orderId === undefined ? {} : { orderId: NumberValue.from(orderId) }),
    ...(requestToken === undefined ? {} : { requestToken }),
    changedAt: changeTime(now),
  };
}

/**
 * The update actions that record `change` on the item: attributes `reason`, `keyId`, `requestToken` (Strings),
 * `orderId` (Number), `changedAt` (String, {@link changeTime}); the ones `change` lacks are removed.
 */
export function lastChangeUpdate(change: LastChange, now?: Date): LastChangeUpdate {
  const attributes = lastChangeAttributes(change, now);
  const update: LastChangeUpdate = { set: [], remove: [], names: {}, values: {} };
  for (const attribute of ['reason', 'keyId', 'orderId', 'requestToken', 'changedAt']) {
    update.names[`#lc_${attribute}`] = attribute;
    if (attribute in attributes) {
      update.set.push(`#lc_${attribute} = :lc_${attribute}`);
      update.values[`:lc_${attribute}`] = attributes[attribute];
    } else {
      update.remove.push(`#lc_${attribute}`);
    }
  }
  return update;
}
