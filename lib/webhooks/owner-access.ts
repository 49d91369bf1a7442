/**
 * The fan-out's check of the API keys behind webhook endpoints (docs/contract.md "History and events": least
 * privilege; docs/architecture.md "Webhook endpoints of API keys"): an endpoint receives only while its rotation
 * chain has a live key holding the scope of each event type it names; otherwise it is disabled with the reason.
 * @module
 */
import { type DynamoDBClient, paginateScan } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { scopes as everyScope, type Scope } from '../api.ts';
import { keyIdOf } from '../auth/api-key.ts';
import { keyStateAt } from '../auth/key-state.ts';
import type { ApiKeyRecord } from '../auth/key-store.ts';
import type { EndpointRoute } from './endpoint-store.ts';
import { missingScopes } from './event-access.ts';

/** Why an API key's endpoint receives nothing: no live key in its chain, or the key lacks a type's scope. */
export type KeyRefusal = 'key_revoked' | 'key_expired' | 'scope_missing';

/** A rotation chain's access: the scopes of its live keys, or why it has none. */
export type ChainAccess = { live: true; scopes: readonly Scope[] } | { live: false; reason: KeyRefusal };

/** What the check reads of a stored key: never a key, its digest only to derive its id. */
type KeyFacts = Pick<
  ApiKeyRecord,
  'keyDigest' | 'firstKeyId' | 'createdAt' | 'revokedAt' | 'expiresAt' | 'scopes'
>;

/**
 * The access of each rotation chain of `records` at `now`, by the chain's first key id (a record's `firstKeyId`,
 * else its own id: the `ownerKeyId` of its endpoints). A live chain holds the scopes of its live keys (every
 * scope for a key stored before scopes existed); a chain without a live key is `key_revoked` or `key_expired`
 * after the state of its newest key.
 */
export function chainAccess(records: readonly KeyFacts[], now: Date): Map<string, ChainAccess> {
  const chains = new Map<string, KeyFacts[]>();
  for (const record of records) {
    const chain = record.firstKeyId ?? keyIdOf(record.keyDigest);
    chains.set(chain, [...(chains.get(chain) ?? []), record]);
  }
  const access = new Map<string, ChainAccess>();
  for (const [chain, keys] of chains) {
    const live = keys.filter((key) => keyStateAt(key, now) === 'active');
    if (live.length > 0) {
      const held = new Set(live.flatMap((key) => key.scopes ?? everyScope));
      access.set(chain, { live: true, scopes: everyScope.filter((scope) => held.has(scope)) });
    } else {
      const newest = keys.reduce((a, b) => (b.createdAt > a.createdAt ? b : a));
      const reason = keyStateAt(newest, now) === 'revoked' ? 'key_revoked' : 'key_expired';
      access.set(chain, { live: false, reason });
    }
  }
  return access;
}

/**
 * Why `route` may not receive under `access`, or undefined when it may: the tool's endpoints (no owner)
 * always may; a chain with no key on record counts as revoked.
 */
export function refusalOf(
  route: EndpointRoute,
  access: ReadonlyMap<string, ChainAccess>,
): KeyRefusal | undefined {
  if (route.ownerKeyId === undefined) return undefined;
  const chain = access.get(route.ownerKeyId) ?? { live: false, reason: 'key_revoked' };
  if (!chain.live) return chain.reason;
  return missingScopes(route.events, chain.scopes).length > 0 ? 'scope_missing' : undefined;
}

/**
 * The fan-out's read of the API keys table: one strongly consistent Scan of all pages, projected to what
 * {@link chainAccess} needs (the keys table holds one item per key an operator made: a small table).
 */
export function ownerKeys(
  client: DynamoDBClient,
  tableName: string,
): { access(now: Date): Promise<Map<string, ChainAccess>> } {
  return {
    async access(now) {
      const records: KeyFacts[] = [];
      const pages = paginateScan(
        { client },
        {
          TableName: tableName,
          ConsistentRead: true,
          ProjectionExpression: 'keyDigest, firstKeyId, createdAt, revokedAt, expiresAt, scopes',
        },
      );
      for await (const page of pages) {
        for (const item of page.Items ?? []) {
          const record = unmarshall(item);
          records.push({ ...record, ...(record.scopes && { scopes: [...record.scopes] }) } as KeyFacts);
        }
      }
      return chainAccess(records, now);
    },
  };
}

/**
 * The routes of `routes` that may receive under `access` ({@link refusalOf}); `disable` is called once for each
 * refused route not yet disabled, and awaited, before the routes are returned.
 */
export async function checkedRoutes(
  routes: readonly EndpointRoute[],
  access: ReadonlyMap<string, ChainAccess>,
  disable: (route: EndpointRoute & { ownerKeyId: string }, reason: KeyRefusal) => Promise<void>,
): Promise<EndpointRoute[]> {
  const allowed: EndpointRoute[] = [];
  const disabling: Promise<void>[] = [];
  for (const route of routes) {
    const refusal = refusalOf(route, access);
    if (refusal === undefined) allowed.push(route);
    else if (route.state !== 'disabled' && route.ownerKeyId !== undefined)
      disabling.push(disable({ ...route, ownerKeyId: route.ownerKeyId }, refusal));
  }
  await Promise.all(disabling);
  return allowed;
}
