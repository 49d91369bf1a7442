/** An entry's strong ETag and `If-Match` (RFC 9110 §8.8, §13.1.1): docs/contract.md "Inventory semantics". */
import { invalidRequest } from '../http/errors.ts';
import { isPetStatus, type PetStatus } from './inventory-item.ts';
import { maxQuantity } from './quantity.ts';

/** The stored values one entity tag stands for. */
export interface TaggedState {
  quantity: number;
  status: PetStatus;
}

/** An `If-Match` precondition: `*` (the entry exists) or the states any of the listed strong tags names. */
export type IfMatch = { any: true } | { any: false; states: TaggedState[] };

/** Most distinct entity tags of this service one `If-Match` may list (keeps the condition expression small). */
export const maxIfMatchTags = 16;

/**
 * The strong `ETag` of an entry, `"<quantity>-<status>"`: it names the stored values, so `If-Match` is one
 * condition expression on them and every writer changes the tag without a version attribute.
 */
export function entityTag({ quantity, status }: TaggedState): string {
  return `"${quantity}-${status}"`;
}

/** True when the stored `state` meets `ifMatch`: `*`, or one of its tags names the state. */
export function meetsIfMatch(ifMatch: IfMatch, state: TaggedState): boolean {
  return (
    ifMatch.any ||
    ifMatch.states.some(({ quantity, status }) => quantity === state.quantity && status === state.status)
  );
}

/**
 * One element of an `If-Match` list (RFC 9110 §5.6.1 `#entity-tag`, §8.8.3 `entity-tag = [ "W/" ] DQUOTE
 * *etagc DQUOTE`, etagc = %x21 / %x23-7E / obs-text): optional whitespace, an optional tag, optional
 * whitespace, then a comma or the end. Elements may be empty (RFC 9110 §5.6.1.2). A comma may sit inside a tag.
 */
const listElement = /[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(,|$)/y;
const ourTag = /^(0|[1-9][0-9]{0,9})-([a-z]+)$/;

/** The state a tag of this service names, or undefined for any other opaque tag. */
function stateOf(opaque: string): TaggedState | undefined {
  const match = ourTag.exec(opaque);
  if (!match) return undefined;
  const quantity = Number(match[1]);
  const status = match[2];
  return quantity <= maxQuantity && isPetStatus(status) ? { quantity, status } : undefined;
}

/** The tags of one field value as `[weak, opaque]` pairs, or undefined when it is not a list of entity tags. */
function entityTags(value: string): [boolean, string][] | undefined {
  const tags: [boolean, string][] = [];
  listElement.lastIndex = 0;
  while (listElement.lastIndex < value.length) {
    const match = listElement.exec(value);
    if (!match) return undefined;
    if (match[2] !== undefined) tags.push([match[1] !== undefined, match[2]]);
    if (match[3] === '') break;
  }
  return listElement.lastIndex === value.length || value.length === 0 ? tags : undefined;
}

/**
 * The precondition of the `If-Match` field values (one or several header lines, each a comma-separated list),
 * or undefined when the request has none. Weak tags (`W/"..."`) never match (strong comparison, RFC 9110
 * §8.8.3.2) and well-formed tags this service never issues match nothing, so a list of only those is a
 * precondition no entry meets (412).
 * @throws HttpError 400 `invalid_request` when the values are not `*` alone or lists of entity tags holding at
 *   least one tag, or list more than {@link maxIfMatchTags} distinct tags of this service.
 */
export function parseIfMatch(values: readonly string[]): IfMatch | undefined {
  if (values.length === 0) return undefined;
  if (values.length === 1 && values[0]?.trim() === '*') return { any: true };
  const rule = 'If-Match must be * or a comma-separated list of entity tags such as "12-available"';
  const states = new Map<string, TaggedState>();
  let count = 0;
  for (const value of values) {
    const tags = entityTags(value);
    if (!tags) throw invalidRequest(rule);
    for (const [weak, opaque] of tags) {
      count++;
      const state = weak ? undefined : stateOf(opaque);
      if (state) states.set(entityTag(state), state);
    }
  }
  if (count === 0) throw invalidRequest(rule);
  if (states.size > maxIfMatchTags) {
    throw invalidRequest(`If-Match may list at most ${maxIfMatchTags} entity tags`);
  }
  return { any: false, states: [...states.values()] };
}
