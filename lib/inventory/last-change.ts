/** The last change an inventory item records with its values: docs/architecture.md "Data layout". */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { InventoryReason } from './inventory-update.ts';

/** Why an entry last changed: a PATCH's reason, or a cancelled order's restock. */
export type ChangeReason = InventoryReason | 'order_cancelled';

/** The last change of an entry: why, by which API key (its id), for which order (the order reasons only). */
export interface LastChange {
  reason: ChangeReason;
  /** The API key's id (lib/auth/api-key.ts `keyIdOf`) from the authorizer's context; absent: none known. */
  keyId?: string;
  orderId?: string;
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

/** The update actions that record `change` on the item: attributes `reason`, `keyId` (Strings), `orderId` (Number). */
export function lastChangeUpdate(change: LastChange): LastChangeUpdate {
  const update: LastChangeUpdate = { set: [], remove: [], names: {}, values: {} };
  for (const attribute of ['reason', 'keyId', 'orderId'] as const) {
    const name = `#lc_${attribute}`;
    update.names[name] = attribute;
    const value = change[attribute];
    if (value === undefined) {
      update.remove.push(name);
    } else {
      update.set.push(`${name} = :lc_${attribute}`);
      // orderId is a Number, as in the orders table (an int64: exact as a NumberValue).
      update.values[`:lc_${attribute}`] = attribute === 'orderId' ? NumberValue.from(value) : value;
    }
  }
  return update;
}
