/** docs/contract.md read independently (nothing from lib/; docs/style.md): what is valid, what it answers. */
import type { IncomingHttpHeaders } from 'node:http';
import { expect } from 'vitest';

/** The error code of each status (docs/contract.md "Errors"). */
export const contractCodes: Readonly<Record<number, string>> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  410: 'gone',
  412: 'precondition_failed',
  413: 'payload_too_large',
  422: 'idempotency_key_reused',
  429: 'too_many_requests',
  500: 'internal_error',
  503: 'service_unavailable',
};

const int64MinDigits = '9223372036854775808';
const int64MaxDigits = '9223372036854775807';

/**
 * The petId a path parameter denotes, as its canonical decimal string, or undefined when the text is not a
 * petId: `-?(0|[1-9][0-9]*)` (ASCII digits only) from -9223372036854775808 to 9223372036854775807.
 * `-0` matches the contract's pattern and denotes 0. Range is checked on the digits (by length, then
 * lexicographically), not by converting to a number.
 */
export function contractPetId(text: string): string | undefined {
  const match = /^(-?)(0|[1-9][0-9]*)$/.exec(text);
  if (!match) return undefined;
  const [, sign, digits = ''] = match;
  const limit = sign ? int64MinDigits : int64MaxDigits;
  if (digits.length > limit.length || (digits.length === limit.length && digits > limit)) return undefined;
  return digits === '0' ? '0' : `${sign}${digits}`;
}

/** RFC 9110 §5.6.2 token. */
const token = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
/** RFC 9110 §5.6.4 quoted-string (obs-text included). */
const quotedString = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
/** RFC 9110 §8.3.1 media-type: `type "/" subtype *( OWS ";" OWS [ parameter ] )`. */
const mediaType = new RegExp(
  `^(${token})/(${token})(?:[ \\t]*;[ \\t]*(?:${token}=(?:${token}|${quotedString}))?)*$`,
);
/** RFC 6838 §4.2 restricted-name with the RFC 6839 `+json` structured syntax suffix. */
const jsonSuffixSubtype = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\+json$/i;

/**
 * True when a `Content-Type` field value is JSON by the contract: `application/json`, or an `application/`
 * type with the `+json` suffix, any case, with any well-formed parameters. The value is taken as the server
 * receives it: HTTP strips leading and trailing whitespace from field values (RFC 9110 §5.5).
 * Decision: only the `application/` top-level type counts (`text/x+json` is not JSON by the contract).
 */
export function isContractJsonContentType(value: string): boolean {
  const match = mediaType.exec(value.trim());
  if (!match) return false;
  const [, type = '', subtype = ''] = match;
  return (
    type.toLowerCase() === 'application' &&
    (subtype.toLowerCase() === 'json' || jsonSuffixSubtype.test(subtype))
  );
}

/**
 * True when an `Authorization` field value carries one of `validKeys` by the contract: `Bearer` (any case),
 * one or more spaces (RFC 6750 `1*SP`; a tab is not a space), then exactly the key. Leading and trailing
 * whitespace is stripped by HTTP before the server sees the value.
 */
export function isContractAuthorization(value: string, validKeys: readonly string[]): boolean {
  const match = /^([^ ]*) +([^ ]*)$/.exec(value.trim());
  if (!match) return false;
  const [, scheme = '', credential = ''] = match;
  return scheme.toLowerCase() === 'bearer' && validKeys.includes(credential);
}

/**
 * The integer the JSON number literal `source` denotes, computed exactly (BigInt decimal arithmetic on the
 * digits and the exponent), or undefined when it denotes a non-integer (docs/contract.md "Integers in request
 * bodies": decided on the source text, not on the rounded double).
 */
function contractInteger(source: string): bigint | undefined {
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(source);
  if (!match) return undefined;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const mantissa = BigInt(whole + fraction) * (sign === '-' ? -1n : 1n);
  const scale = Number(exponent) - fraction.length;
  if (mantissa === 0n) return 0n;
  // |mantissa| < 10^digits: a larger power of ten in the divisor leaves a fraction.
  if (scale < 0 && -scale > (whole + fraction).length) return undefined;
  if (scale < 0) {
    const divisor = 10n ** BigInt(-scale);
    return mantissa % divisor === 0n ? mantissa / divisor : undefined;
  }
  // Any non-zero mantissa times 10^40 is beyond every integer range of the contract.
  return scale > 40 ? 10n ** 40n * mantissa : mantissa * 10n ** BigInt(scale);
}

/**
 * `body` as text, or undefined when it is not UTF-8 and so not JSON (RFC 8259 §8.1; docs/contract.md
 * "InventoryUpdate": a body that is not JSON is 400). A byte-order mark is kept, so JSON.parse refuses it.
 */
function contractText(body: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return undefined;
  }
}

/** What a PATCH body valid by the contract asks (docs/contract.md "InventoryUpdate"). */
export interface ContractInventoryUpdate {
  quantity?: number;
  /** An integer from -2147483647 to 2147483647, not 0; never with `quantity`. */
  adjustBy?: number;
  status?: string;
  /** An integer from 0 to 2147483647, or null: the point cleared. */
  reorderPoint?: number | null;
  /** `arrival`, `return`, `adjustment`, `sale` or `loss`; `adjustment` when the body names none. */
  reason: string;
}

/**
 * The first member name, in text order, that repeats a name of the same object, at any depth, compared once
 * escapes are decoded; undefined when there is none (docs/contract.md "InventoryUpdate": a name twice in one
 * object is 400 in every request body, RFC 7493 §2.3). `text` must be JSON. Tokens by regular expression
 * (strings whole, then the structural characters), an explicit stack for any depth.
 */
export function contractDuplicateMember(text: string): string | undefined {
  const objects: (Set<string> | undefined)[] = [];
  let nameNext = false;
  for (const [token] of text.matchAll(/"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\],]/g)) {
    if (token === '{') objects.push(new Set());
    else if (token === '[') objects.push(undefined);
    else if (token === '}' || token === ']') objects.pop();
    else if (token !== ',') {
      const names = objects.at(-1);
      if (nameNext && names) {
        const name = JSON.parse(token) as string;
        if (names.has(name)) return name;
        names.add(name);
      }
    }
    nameNext = token === '{' || (token === ',' && objects.at(-1) !== undefined);
  }
  return undefined;
}

/** The 400 message naming a member that appears twice ({@link contractDuplicateMember}). */
export function contractDuplicateMessage(name: string): string {
  return `request body member ${contractListedNames([name])} appears twice in one object`;
}

/**
 * The update a PATCH body valid by the contract asks, or undefined when the body is not valid: UTF-8 text (no
 * byte-order mark) holding one JSON value (RFC 8259), an object with at least one of `quantity`, `status`,
 * `reorderPoint`
 * and optionally `reason`, and nothing else. `quantity` is an integer from 0 to 2147483647 judged on its source
 * text ({@link contractInteger}): `5.0` and `5e0` are the integer 5 (as JSON Schema), `4.9999999999999999` and
 * `1e-400` are not integers. `status` is `available`, `pending` or `sold`; `reorderPoint` an integer from 0 to
 * 2147483647 (judged as quantity) or null; `reason` is `arrival`, `return`, `adjustment`, `sale` or `loss`
 * (default `adjustment`). A member named `__proto__` is an unknown member like any other, so such
 * a body is never valid, nor one with a member name twice in one object.
 */
export function contractInventoryUpdate(body: Uint8Array): ContractInventoryUpdate | undefined {
  const text = contractText(body);
  if (text === undefined) return undefined;
  const sources = new Map<object, Record<string, string>>();
  let value: unknown;
  try {
    value = JSON.parse(text, function (this: object, key, member, context?: { source?: string }) {
      if (
        ['quantity', 'adjustBy', 'reorderPoint'].includes(key) &&
        typeof member === 'number' &&
        context?.source
      )
        sources.set(this, { ...sources.get(this), [key]: context.source });
      return member;
    });
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  if (contractDuplicateMember(text) !== undefined) return undefined;
  const members = Object.getOwnPropertyNames(value);
  const changing = ['quantity', 'adjustBy', 'status', 'reorderPoint'];
  if (members.some((member) => ![...changing, 'reason'].includes(member))) return undefined;
  const record = value as Record<string, unknown>;
  if (!changing.some((member) => members.includes(member))) return undefined;
  // An integer from `min` to 2147483647 judged on its source text; undefined when not.
  const counted = (name: string, min = 0n) => {
    const source = sources.get(value as object)?.[name];
    const integer = source === undefined ? undefined : contractInteger(source);
    return integer === undefined || integer < min || integer > 2147483647n ? undefined : Number(integer);
  };
  if (members.includes('quantity') && members.includes('adjustBy')) return undefined;
  const adjustBy = members.includes('adjustBy') ? counted('adjustBy', -2147483647n) : undefined;
  if (members.includes('adjustBy') && (adjustBy === undefined || adjustBy === 0)) return undefined;
  const quantity = members.includes('quantity') ? counted('quantity') : undefined;
  if (members.includes('quantity') && quantity === undefined) return undefined;
  const reorderPoint = record.reorderPoint === null ? null : counted('reorderPoint');
  if (members.includes('reorderPoint') && reorderPoint === undefined) return undefined;
  const { status, reason = 'adjustment' } = record;
  if (members.includes('status') && !['available', 'pending', 'sold'].includes(status as string)) {
    return undefined;
  }
  if (!['arrival', 'return', 'adjustment', 'sale', 'loss'].includes(reason as string)) return undefined;
  return {
    ...(quantity === undefined ? {} : { quantity }),
    ...(adjustBy === undefined ? {} : { adjustBy }),
    ...(status === undefined ? {} : { status: status as string }),
    ...(reorderPoint === undefined ? {} : { reorderPoint }),
    reason: reason as string,
  };
}

/** A response reduced to what the contract speaks of. */
export interface ObservedResponse {
  status: number;
  /** The `content-type` header value, if any. */
  contentType: string | undefined;
  text: string;
}

/**
 * `response` with its `content-type` header value as `contentType`, ready for {@link expectContractError}:
 * for a `fetch` response (`headers` a `Headers`) and for a raw one (`headers` Node's lower-cased object) alike.
 */
export function observe<R extends { status: number; text: string; headers: Headers | IncomingHttpHeaders }>(
  response: R,
): R & ObservedResponse {
  const contentType =
    response.headers instanceof Headers
      ? (response.headers.get('content-type') ?? undefined)
      : response.headers['content-type'];
  return { ...response, contentType };
}

/**
 * Asserts that `response` is an Error response of the contract: the given status, `Content-Type:
 * application/json`, and a body with exactly the members `code` (the status's contract code), `message` (a
 * non-empty string; equal to `message` when given) and `status` (the HTTP status).
 * @returns the parsed body.
 */
export function expectContractError(
  response: ObservedResponse,
  status: number,
  message?: string,
): { code: string; message: string; status: number } {
  expect(response.status, response.text).toBe(status);
  expect(response.contentType).toBe('application/json');
  const body = JSON.parse(response.text);
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
  expect(body.code).toBe(contractCodes[status]);
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  if (message !== undefined) expect(body.message).toBe(message);
  return body;
}

/** The exact JSON text of one InventoryItem, petId written digit for digit (docs/contract.md "Identifiers"). */
export function inventoryItemJson(item: { petId: string; quantity: number; status: string }): string {
  return `{"petId":${item.petId},"quantity":${item.quantity},"status":${JSON.stringify(item.status)}}`;
}

/** What an `If-Match` precondition asks, by the contract (docs/contract.md "Inventory semantics"). */
export type ContractIfMatch = 'none' | 'invalid' | 'any' | { strongTags: string[] };

/**
 * Reads `If-Match` field values by RFC 9110 (§13.1.1 `If-Match = "*" / #entity-tag`; §5.6.1 lists, empty
 * elements allowed; §8.8.3 `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE`, etagc = %x21 / %x23-7E / obs-text),
 * walking each value character by character. Several field lines are one list (RFC 9110 §5.3).
 * Decisions where the contract is silent: a value that is not `*` alone nor a list holding at least one tag is
 * 400; more than 16 distinct tags of the service's form (`"<quantity>-<status>"`) is 400 (a bound the
 * contract allows; the generators rarely reach it).
 */
export function contractIfMatch(values: readonly string[]): ContractIfMatch {
  if (values.length === 0) return 'none';
  if (values.length === 1 && values[0]?.replace(/^[ \t]+|[ \t]+$/g, '') === '*') return 'any';
  const strongTags: string[] = [];
  let tagCount = 0;
  for (const value of values) {
    let at = 0;
    const skipSpace = () => {
      while (value[at] === ' ' || value[at] === '\t') at++;
    };
    while (at <= value.length) {
      skipSpace();
      if (at === value.length) break;
      if (value[at] !== ',') {
        const weak = value.startsWith('W/', at);
        if (weak) at += 2;
        if (value[at] !== '"') return 'invalid';
        const close = value.indexOf('"', at + 1);
        if (close < 0) return 'invalid';
        const opaque = value.slice(at + 1, close);
        for (const char of opaque) {
          const code = char.charCodeAt(0);
          if (!(code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff))) {
            return 'invalid';
          }
        }
        tagCount++;
        if (!weak) strongTags.push(`"${opaque}"`);
        at = close + 1;
        skipSpace();
        if (at === value.length) break;
        if (value[at] !== ',') return 'invalid';
      }
      at++;
    }
  }
  if (tagCount === 0) return 'invalid';
  const serviceForm = /^"(0|[1-9][0-9]*)-(available|pending|sold)"$/;
  const distinct = new Set(
    strongTags.filter((tag) => serviceForm.test(tag) && Number(tag.slice(1, tag.indexOf('-'))) <= 2147483647),
  );
  return distinct.size > 16 ? 'invalid' : { strongTags };
}

/** An order a placeOrder body asks for (ids as canonical decimal strings). */
export interface ContractOrder {
  petId: string;
  quantity: number;
  shipDate?: string;
}

/**
 * Judges a placeOrder body by the contract (docs/contract.md "Store orders", "Integers in request bodies"): a
 * UTF-8 JSON object whose members are `petId` (an int64 JSON integer), `quantity` (a JSON integer from 1 to
 * 2147483647) and optionally `shipDate` (an RFC 3339 date-time naming a real calendar date), and nothing else;
 * integers judged on their source text.
 * Decisions where the contract is silent: `id`, `status` and `complete` are the service's, so a body carrying
 * them is invalid like any other unknown member; a `__proto__` member is refused by name.
 * @returns the order, or every problem's Error message (the service names one of them).
 */
export function contractNewOrder(body: Uint8Array): { order: ContractOrder } | { problems: string[] } {
  const text = contractText(body);
  if (text === undefined) return { problems: ['request body must be valid JSON'] };
  const example = '{"petId": 7, "quantity": 1}';
  if (text === '') return { problems: [`request body is required: a JSON object such as ${example}`] };
  const sources = new Map<string, string>();
  let proto = false;
  let value: unknown;
  try {
    value = JSON.parse(text, function (this: object, key, member, context?: { source?: string }) {
      if (key === '__proto__') proto = true;
      if ((key === 'petId' || key === 'quantity') && typeof member === 'number' && context?.source) {
        sources.set(key, context.source);
      }
      return member;
    });
  } catch {
    return { problems: ['request body must be valid JSON'] };
  }
  const problems = proto ? ['request body member "__proto__" is not allowed'] : [];
  const duplicate = contractDuplicateMember(text);
  if (duplicate !== undefined) return { problems: [...problems, contractDuplicateMessage(duplicate)] };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: [...problems, `request body must be a JSON object such as ${example}`] };
  }
  const record = value as Record<string, unknown>;
  const unknown = Object.getOwnPropertyNames(record).filter(
    (member) => !['petId', 'quantity', 'shipDate'].includes(member),
  );
  if (unknown.length > 0) {
    problems.push(
      `an order may only contain petId, quantity, shipDate; not allowed: ${contractListedNames(unknown)}`,
    );
  }
  const petId = typeof record.petId === 'number' ? contractInteger(sources.get('petId') ?? '') : undefined;
  const quantity =
    typeof record.quantity === 'number' ? contractInteger(sources.get('quantity') ?? '') : undefined;
  if (petId === undefined || petId < -(2n ** 63n) || petId > 2n ** 63n - 1n) {
    problems.push('petId must be an integer from -9223372036854775808 to 9223372036854775807');
  }
  if (quantity === undefined || quantity < 1n || quantity > 2147483647n) {
    problems.push('quantity must be an integer from 1 to 2147483647');
  }
  const { shipDate } = record;
  if (shipDate !== undefined && !(typeof shipDate === 'string' && isContractDateTime(shipDate))) {
    problems.push('shipDate must be an RFC 3339 date-time such as 2026-12-01T10:00:00Z');
  }
  if (problems.length > 0) return { problems };
  return {
    order: {
      petId: (petId as bigint).toString(),
      quantity: Number(quantity),
      ...(shipDate === undefined ? {} : { shipDate: shipDate as string }),
    },
  };
}

/**
 * True when `id` (the digits a response wrote) is an id the service may assign (docs/contract.md
 * "Identifiers"): canonical decimal, from 1 to 2^53 - 1 (9007199254740991), so `JSON.parse` reads it exactly.
 */
export function isContractAssignedId(id: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(id) && BigInt(id) <= 9007199254740991n;
}

/** An inventory entry as placeOrder finds it. */
export interface ContractEntry {
  quantity: number;
  status: string;
}

/** A refusal's status, code and exact message. */
export interface ContractRefusal {
  status: number;
  code: string;
  message: string;
}

/**
 * placeOrder's answer to a valid `order` by the contract (docs/contract.md "Store orders", "Errors"): undefined
 * when it is placed (201); else 404 `not_found` when the pet has no entry (`entry` undefined), 409
 * `pet_unavailable` when the entry is `pending` or `sold`, 409 `insufficient_stock` when it holds less than the
 * order's quantity. Decision where the contract is silent: an entry both unavailable and short is
 * `pet_unavailable` (its status keeps the order out whatever its stock).
 */
export function contractPlacementRefusal(
  entry: ContractEntry | undefined,
  order: ContractOrder,
): ContractRefusal | undefined {
  if (entry === undefined) {
    return { status: 404, code: 'not_found', message: `no inventory entry for petId ${order.petId}` };
  }
  if (entry.status !== 'available') {
    return {
      status: 409,
      code: 'pet_unavailable',
      message: `petId ${order.petId} is not available: its status is ${entry.status}`,
    };
  }
  if (entry.quantity < order.quantity) {
    return {
      status: 409,
      code: 'insufficient_stock',
      message: `fewer than ${order.quantity} of petId ${order.petId} in stock`,
    };
  }
  return undefined;
}

/** True when `date` is an RFC 3339 date-time (§5.6) naming a real calendar date (leap second 60 allowed). */
function isContractDateTime(date: string): boolean {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/.exec(date);
  if (!match) return false;
  const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = match
    .slice(1)
    .map((part) => Number(part ?? '0'));
  // The Gregorian calendar of RFC 3339 §5.7, for every year from 0000 (a leap year) to 9999.
  const y = year as number;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const lastDay = month === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(month as number) ? 30 : 31;
  // Each field of RFC 3339 §5.6 with its inclusive range (§5.7: the day by month and leap year).
  const ranges: [number | undefined, number, number][] = [
    [month, 1, 12],
    [day, 1, lastDay],
    [hour, 0, 23],
    [minute, 0, 59],
    [second, 0, 60],
    [offsetHour, 0, 23],
    [offsetMinute, 0, 59],
  ];
  return ranges.every(([value = Number.NaN, min, max]) => value >= min && value <= max);
}

/**
 * True when `Idempotency-Key` field values carry a key by the contract (docs/contract.md "Store orders"): sent
 * once, 1-255 visible ASCII characters (%x21-7E) once HTTP has stripped the value's surrounding whitespace
 * (RFC 9110 §5.5). No value at all is a request without a key (also true).
 */
export function isContractIdempotencyKey(values: readonly string[]): boolean {
  if (values.length === 0) return true;
  return (
    values.length === 1 && /^[\x21-\x7e]{1,255}$/.test((values[0] as string).replace(/^[ \t]+|[ \t]+$/g, ''))
  );
}

/** The statuses of an order (docs/contract.md "Store orders"). */
export const contractOrderStatuses = ['placed', 'approved', 'delivered', 'cancelled'] as const;

/**
 * What updateOrder does to an order in status `from` asked to move to `to`, by the contract (docs/contract.md
 * "Store orders"): `unchanged` (200, the current status), `moved` (200: `placed` -> `approved` -> `delivered`,
 * `placed` or `approved` -> `cancelled`) or `refused` (409 `invalid_transition`, nothing changed).
 */
export function contractOrderMove(from: string, to: string): 'unchanged' | 'moved' | 'refused' {
  if (from === to) return 'unchanged';
  const lifecycle = new Set([
    'placed>approved',
    'approved>delivered',
    'placed>cancelled',
    'approved>cancelled',
  ]);
  return lifecycle.has(`${from}>${to}`) ? 'moved' : 'refused';
}

/** The Pet an addPet body asks for, by the contract: ids as canonical decimal strings, `id` absent when to be assigned. */
export interface ContractPet {
  id?: string;
  name: string;
  category?: { id: string; name: string };
  photoUrls: string[];
  tags: { id: string; name: string }[];
  status: string;
}

/**
 * The names of members not in `allowed` as the contract's messages list them (docs/contract.md
 * "InventoryUpdate": at most five, each cut to 64 characters, JSON-quoted, then ` and <n> more`).
 */
export function contractListedNames(names: readonly string[]): string {
  const shown = names
    .slice(0, 5)
    .map((name) => JSON.stringify([...name].slice(0, 64).join('')))
    .join(', ');
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/**
 * Judges an addPet body by the contract (docs/contract.md "Pets", "Integers in request bodies"; openapi.yaml
 * `Pet`): UTF-8 JSON, an object of `id` (int64), `name` (1-200 characters of well-formed Unicode), `category`
 * (`{id, name}`), `photoUrls` (at most 20 strings of 1-2000 characters), `tags` (at most 20 `{id, name}`),
 * `status` (available, pending or sold; default available); nothing else, no member `null`.
 * @returns the Pet it creates, or every problem's Error message (the service names one of them; which one the
 * contract does not say).
 */
export function contractNewPet(body: Uint8Array): { pet: ContractPet } | { problems: string[] } {
  const text = contractText(body);
  if (text === undefined) return { problems: ['request body must be valid JSON'] };
  if (text === '') return { problems: ['request body is required: a JSON object such as {"name": "Rex"}'] };
  const sources = new Map<object, string>();
  let value: unknown;
  try {
    value = JSON.parse(text, function (this: object, key, member, context?: { source?: string }) {
      if (key === 'id' && typeof member === 'number' && context?.source) sources.set(this, context.source);
      return member;
    });
  } catch {
    return { problems: ['request body must be valid JSON'] };
  }
  const duplicate = contractDuplicateMember(text);
  if (duplicate !== undefined) return { problems: [contractDuplicateMessage(duplicate)] };
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!isObject(value)) {
    return { problems: ['request body must be a JSON object such as {"name": "Rex"}'] };
  }
  const problems: string[] = [];
  const int64Rule = (what: string) =>
    `${what} must be an integer from -9223372036854775808 to 9223372036854775807`;
  const int64Of = (holder: Record<string, unknown>, what: string): string | undefined => {
    const source = typeof holder.id === 'number' ? sources.get(holder) : undefined;
    const id = source === undefined ? undefined : contractInteger(source);
    if (id === undefined || id < -(2n ** 63n) || id > 2n ** 63n - 1n) {
      problems.push(int64Rule(what));
      return undefined;
    }
    return id.toString();
  };
  const isText = (v: unknown, max: number): v is string =>
    typeof v === 'string' && v.isWellFormed() && v.length > 0 && [...v].length <= max;
  const label = (v: unknown, what: string) => {
    if (!isObject(v)) {
      problems.push(`${what} must be an object {"id": <int64>, "name": <string>}`);
      return undefined;
    }
    const unknown = Object.keys(v).filter((name) => name !== 'id' && name !== 'name');
    if (unknown.length > 0)
      problems.push(`${what} may only contain id and name; not allowed: ${contractListedNames(unknown)}`);
    if (!isText(v.name, 200)) problems.push(`${what}.name must be a string of 1 to 200 characters`);
    const id = int64Of(v, `${what}.id`);
    return id === undefined || !isText(v.name, 200) ? undefined : { id, name: v.name };
  };
  const list = <T>(v: unknown, what: string, item: (member: unknown, at: string) => T | undefined) => {
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.length > 20) {
      problems.push(`${what} must be an array of at most 20 items`);
      return [];
    }
    return v.map((member, index) => item(member, `${what}[${index}]`));
  };
  const members = ['id', 'name', 'category', 'photoUrls', 'tags', 'status'];
  const unknown = Object.keys(value).filter((name) => !members.includes(name));
  if (unknown.length > 0) {
    problems.push(
      `a Pet may only contain ${members.join(', ')}; not allowed: ${contractListedNames(unknown)}`,
    );
  }
  if (!isText(value.name, 200)) problems.push('name must be a string of 1 to 200 characters');
  const status = value.status === undefined ? 'available' : value.status;
  if (typeof status !== 'string' || !['available', 'pending', 'sold'].includes(status)) {
    problems.push('status must be one of available, pending, sold');
  }
  const photoUrls = list(value.photoUrls, 'photoUrls', (url, at) => {
    if (isText(url, 2000)) return url;
    problems.push(`${at} must be a string of 1 to 2000 characters`);
    return undefined;
  });
  const tags = list(value.tags, 'tags', label);
  const category = value.category === undefined ? undefined : label(value.category, 'category');
  const id = value.id === undefined ? undefined : int64Of(value, 'id');
  if (problems.length > 0) return { problems };
  return {
    pet: {
      ...(id === undefined ? {} : { id }),
      name: value.name as string,
      ...(category === undefined ? {} : { category }),
      photoUrls: photoUrls as string[],
      tags: tags as { id: string; name: string }[],
      status: status as string,
    },
  };
}

/** The exact JSON text of a Pet (docs/contract.md "Pets"): members in the order id, name, category, photoUrls, tags, status; ids digit for digit. */
export function contractPetJson(pet: ContractPet & { id: string }): string {
  const label = ({ id, name }: { id: string; name: string }) => `{"id":${id},"name":${JSON.stringify(name)}}`;
  return `{"id":${pet.id},"name":${JSON.stringify(pet.name)}${
    pet.category ? `,"category":${label(pet.category)}` : ''
  },"photoUrls":${JSON.stringify(pet.photoUrls)},"tags":[${pet.tags.map(label).join(',')}],"status":${JSON.stringify(pet.status)}}`;
}

/** One change of a batch valid by the contract (docs/contract.md "Inventory semantics"). */
export interface ContractBatchChange extends ContractInventoryUpdate {
  /** Canonical decimal. */
  petId: string;
  /** The element's `ifMatch` as read by {@link contractIfMatch}: `none`, `any` or its strong tags. */
  ifMatch: Exclude<ContractIfMatch, 'invalid'>;
}

/**
 * Judges a batchUpdateInventory body by the contract: UTF-8 JSON, no member name twice in one object, an
 * object whose only member is `changes`, an array of 1 to 100 elements, each an object with `petId` (an int64
 * JSON integer, judged on its source text), the members and rules of {@link contractInventoryUpdate}, and
 * optionally `ifMatch`, a string `If-Match` would accept ({@link contractIfMatch}); a petId at most once.
 * Decisions where the contract is silent (docs/contract.md "Inventory semantics", the batch's decisions): the
 * first failing element is the lowest index whose element is invalid or repeats an earlier petId; a body
 * failing as a whole (not an object, other members, not 1-100 elements) fails at no index.
 * @returns the changes, or the failing element's index (`index` undefined: the body as a whole).
 */
export function contractBatch(body: Uint8Array): { changes: ContractBatchChange[] } | { index?: number } {
  const text = contractText(body);
  if (text === undefined || contractDuplicateMember(text) !== undefined) return {};
  const sources = new Map<object, Record<string, string>>();
  let value: unknown;
  try {
    value = JSON.parse(text, function (this: object, key, member, context?: { source?: string }) {
      if (
        ['petId', 'quantity', 'adjustBy', 'reorderPoint'].includes(key) &&
        typeof member === 'number' &&
        context?.source
      ) {
        sources.set(this, { ...sources.get(this), [key]: context.source });
      }
      return member;
    });
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  if (Object.getOwnPropertyNames(value).some((name) => name !== 'changes')) return {};
  const { changes } = value as { changes?: unknown };
  if (!Array.isArray(changes) || changes.length < 1 || changes.length > 100) return {};
  const judged: ContractBatchChange[] = [];
  const seen = new Set<string>();
  for (const [index, element] of changes.entries()) {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) return { index };
    const record = element as Record<string, unknown>;
    const { petId: petIdSource, ...others } = sources.get(element) ?? {};
    const petId = petIdSource === undefined ? undefined : contractInteger(petIdSource);
    if (petId === undefined || petId < -(2n ** 63n) || petId >= 2n ** 63n || seen.has(String(petId))) {
      return { index };
    }
    const { petId: _, ifMatch, ...update } = record;
    const ifMatchRead = Object.hasOwn(record, 'ifMatch')
      ? typeof ifMatch === 'string'
        ? contractIfMatch([ifMatch])
        : 'invalid'
      : 'none';
    // The update's members alone, re-encoded with their source text, judged as a PATCH body.
    const updateText = `{${Object.entries(update)
      .map(([name, member]) => `${JSON.stringify(name)}:${others[name] ?? JSON.stringify(member)}`)
      .join(',')}}`;
    const valid = contractInventoryUpdate(new TextEncoder().encode(updateText));
    if (valid === undefined || ifMatchRead === 'invalid') return { index };
    seen.add(String(petId));
    judged.push({ ...valid, petId: String(petId), ifMatch: ifMatchRead });
  }
  return { changes: judged };
}

/** True when an entry in state `quantity`/`status` meets `ifMatch` (docs/contract.md "Inventory semantics"). */
export function contractMeets(
  ifMatch: ContractBatchChange['ifMatch'],
  entry: { quantity: number; status: string },
): boolean {
  if (ifMatch === 'none' || ifMatch === 'any') return true;
  return ifMatch.strongTags.includes(`"${entry.quantity}-${entry.status}"`);
}

/** The exact JSON text of a batch's 200 answer: each InventoryItem with its strong tag as `etag`. */
export function contractBatchJson(
  items: readonly { petId: string; quantity: number; status: string }[],
): string {
  const members = items.map(
    (item) =>
      `${inventoryItemJson(item).slice(0, -1)},"etag":${JSON.stringify(`"${item.quantity}-${item.status}"`)}}`,
  );
  return `{"items":[${members.join(',')}]}`;
}
