/** Order, after the OpenAPI Petstore's `Order`: docs/contract.md "Store orders". */
import { invalidRequest, unknownMembers } from '../http/errors.ts';
import { petIdOfJson, petIdRule, toPetId } from '../inventory/pet-id.ts';
import { maxQuantity } from '../inventory/quantity.ts';
import { exactInteger } from '../json-integers.ts';

/** The statuses of an order, in lifecycle order (docs/contract.md "Store orders"; lib/orders/transitions.ts). */
export const orderStatuses = ['placed', 'approved', 'delivered', 'cancelled'] as const;

/** The status of an order: new orders are `placed`; updateOrder moves them. */
export type OrderStatus = (typeof orderStatuses)[number];

/** An order. Ids are canonical decimal strings of positive int64s; `shipDate` an RFC 3339 date-time. */
export interface Order {
  id: string;
  petId: string;
  quantity: number;
  shipDate?: string;
  status: OrderStatus;
  complete: boolean;
}

/** A validated placeOrder body. */
export type NewOrder = Pick<Order, 'petId' | 'quantity' | 'shipDate'>;

const orderMembers = ['petId', 'quantity', 'shipDate'];

/** RFC 3339 §5.6 `date-time` (the `T` and `Z` in either case). */
const dateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** True when `text` is an RFC 3339 date-time naming a real instant (month days, hours, offsets in range). */
function isDateTime(text: string): boolean {
  const match = dateTime.exec(text);
  if (!match) return false;
  const [, year, month, day, hour, minute, second, , , offsetHour = '00', offsetMinute = '00'] = match;
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0 to 99 into the 1900s (year 0000 has a 29 February).
  const lastOfMonth = new Date(0);
  lastOfMonth.setUTCFullYear(Number(year), Number(month), 0);
  const daysInMonth = lastOfMonth.getUTCDate();
  return (
    Number(month) >= 1 &&
    Number(month) <= 12 &&
    Number(day) >= 1 &&
    Number(day) <= daysInMonth &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 60 &&
    Number(offsetHour) <= 23 &&
    Number(offsetMinute) <= 59
  );
}

/**
 * Validates a parsed placeOrder body: an object with `petId` (int64) and `quantity` (1 to 2147483647), and
 * optionally `shipDate` (an RFC 3339 date-time); no other member (`id`, `status`, `complete` are the service's).
 * @throws HttpError 400 `invalid_request` naming the first problem found.
 */
export function parseNewOrder(body: unknown): NewOrder {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidRequest('request body must be a JSON object such as {"petId": 7, "quantity": 1}');
  }
  const record = body as Record<string, unknown>;
  const unknown = unknownMembers(record, orderMembers);
  if (unknown)
    throw invalidRequest(`an order may only contain petId, quantity, shipDate; not allowed: ${unknown}`);
  const petId = petIdOfJson(record.petId);
  if (petId === undefined) throw invalidRequest(petIdRule);
  const quantity = exactInteger(record.quantity);
  if (quantity === undefined || quantity < 1n || quantity > BigInt(maxQuantity)) {
    throw invalidRequest(`quantity must be an integer from 1 to ${maxQuantity}`);
  }
  const { shipDate } = record;
  if (shipDate !== undefined && (typeof shipDate !== 'string' || !isDateTime(shipDate))) {
    throw invalidRequest('shipDate must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z');
  }
  return {
    petId,
    quantity: Number(quantity),
    ...(shipDate === undefined ? {} : { shipDate: shipDate as string }),
  };
}

/**
 * The orderId of a request path: a canonical int64 (docs/contract.md "Identifiers").
 * @throws HttpError 400 `invalid_request` otherwise.
 */
export function parseOrderId(text: string | undefined): string {
  const orderId = text === undefined ? undefined : toPetId(text);
  if (orderId === undefined) {
    throw invalidRequest(
      "orderId must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal without leading zeros or '+'",
    );
  }
  return orderId;
}

/** The exact JSON of an Order (ids digit for digit), members in the order of {@link Order}. */
export function orderValue(order: Order) {
  return {
    id: JSON.rawJSON(order.id),
    petId: JSON.rawJSON(order.petId),
    quantity: order.quantity,
    ...(order.shipDate === undefined ? {} : { shipDate: order.shipDate }),
    status: order.status,
    complete: order.complete,
  };
}

/** The exact JSON text of one Order or of an array of them. */
export function orderJson(orders: Order | readonly Order[]): string {
  return JSON.stringify(Array.isArray(orders) ? orders.map(orderValue) : orderValue(orders as Order));
}
