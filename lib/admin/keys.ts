/** The key tool's operations on a key store: docs/contract.md "Operator tooling"; docs/operating.md "API keys". */

import type { Scope } from '#lib/api.ts';
import { apiKeyDigest, generateApiKey, isKeyId, keyIdOf } from '#lib/auth/api-key.ts';
import type { Throttle } from '#lib/auth/authorize.ts';
import { type KeyState, keyStateAt } from '#lib/auth/key-state.ts';
import type { ApiKeyRecord, KeyStore } from '#lib/auth/key-store.ts';
import { chainAccess, type KeyRefusal } from '#lib/webhooks/owner-access.ts';
import type { GatewayKeys } from './gateway-keys.ts';

/**
 * One key as an operator may see it (`keys list --json`): never the key or its digest. `id` is what `revoke`
 * and `rotate` take; `scopes` every scope for a key stored before scopes existed; `rateLimit` / `burstLimit`
 * null when the environment's default applies; times ISO 8601 UTC or null.
 */
export interface KeySummary {
  id: string;
  name: string;
  state: KeyState;
  scopes: readonly string[];
  rateLimit: number | null;
  burstLimit: number | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** A key tool error: the message is for the operator, no stack is printed. */
export class KeyToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyToolError';
  }
}

/** The key's own throttle, or undefined when the environment's default applies. */
function throttleOf(record: ApiKeyRecord): Throttle | undefined {
  return record.rateLimit !== undefined && record.burstLimit !== undefined
    ? { rateLimit: record.rateLimit, burstLimit: record.burstLimit }
    : undefined;
}

/** What a new key is: its name, creation time, optional expiry, scopes and own throttle. */
export interface NewKey {
  name: string;
  /** The id of the first key of the rotation chain it joins (a key made by {@link rotateKey}). */
  firstKeyId?: string;
  now: Date;
  expiresAt?: Date;
  scopes: readonly Scope[];
  /** The key's own throttle; absent: the environment's default (the stack's default usage plan). */
  throttle?: Throttle;
}

/**
 * Creates a key (see {@link NewKey}); with `gateway`, its API Gateway API key first, deleted again when the
 * record cannot be stored.
 * @returns the key itself: the only time it exists outside the caller's hands.
 * @throws KeyToolError when the name is empty or there is no scope.
 */
export async function createKey(keys: KeyStore, key: NewKey, gateway?: GatewayKeys): Promise<string> {
  if (key.name.trim() === '') throw new KeyToolError('a key needs a name');
  if (key.scopes.length === 0) throw new KeyToolError('a key needs at least one scope');
  const apiKey = generateApiKey();
  const keyDigest = apiKeyDigest(apiKey);
  await gateway?.add(keyDigest, key.name, key.throttle);
  try {
    await keys.put({
      keyDigest,
      name: key.name,
      ...(key.firstKeyId === undefined ? {} : { firstKeyId: key.firstKeyId }),
      createdAt: key.now.toISOString(),
      ...(key.expiresAt ? { expiresAt: key.expiresAt.toISOString() } : {}),
      scopes: [...key.scopes],
      ...key.throttle,
    });
  } catch (error) {
    await gateway?.remove(keyDigest).catch(() => {});
    throw error;
  }
  return apiKey;
}

function summaryOf(record: ApiKeyRecord, now: Date, allScopes: readonly Scope[]): KeySummary {
  return {
    id: keyIdOf(record.keyDigest),
    name: record.name,
    state: keyStateAt(record, now),
    scopes: record.scopes ?? allScopes,
    rateLimit: record.rateLimit ?? null,
    burstLimit: record.burstLimit ?? null,
    createdAt: record.createdAt,
    expiresAt: record.expiresAt ?? null,
    lastUsedAt: record.lastUsedAt ?? null,
  };
}

/** Every key's summary, oldest first; `allScopes` are shown for keys stored before scopes existed. */
export async function listKeys(
  keys: KeyStore,
  now: Date,
  allScopes: readonly Scope[],
): Promise<KeySummary[]> {
  const records = await keys.list();
  return records
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    .map((record) => summaryOf(record, now, allScopes));
}

/**
 * The keys `idOrName` designates: the key with that id (in any state), else the active keys with that name.
 * @throws KeyToolError when none matches, or several active keys have the name and `all` is false.
 */
async function designated(
  keys: KeyStore,
  idOrName: string,
  now: Date,
  all: boolean,
): Promise<ApiKeyRecord[]> {
  const records = await keys.list();
  if (isKeyId(idOrName)) {
    const byId = records.filter((record) => keyIdOf(record.keyDigest) === idOrName);
    if (byId.length > 0) return byId;
  }
  const byName = records.filter((record) => record.name === idOrName && keyStateAt(record, now) === 'active');
  if (byName.length === 0)
    throw new KeyToolError(`no key with the id "${idOrName}" and no active key with that name`);
  if (byName.length > 1 && !all) {
    const ids = byName.map((record) => keyIdOf(record.keyDigest)).join(', ');
    throw new KeyToolError(
      `${byName.length} active keys are named "${idOrName}" (ids ${ids}): give one id, or --all to revoke them all`,
    );
  }
  return byName;
}

/**
 * Revokes the keys `idOrName` designates (see {@link designated}) at `now`; with `gateway`, deletes their API
 * Gateway API keys too.
 * @returns the ids of the keys revoked.
 */
export async function revokeKeys(
  keys: KeyStore,
  idOrName: string,
  options: { now: Date; all: boolean; gateway?: GatewayKeys },
): Promise<string[]> {
  const records = await designated(keys, idOrName, options.now, options.all);
  for (const record of records) {
    await keys.revoke(record.keyDigest, options.now);
    await options.gateway?.remove(record.keyDigest);
  }
  return records.map((record) => keyIdOf(record.keyDigest));
}

/**
 * The rotation chains (by first key id, the `ownerKeyId` of their endpoints) of the keys with the ids `ids` that
 * hold no live key at `now`, each with why (lib/webhooks/owner-access.ts `chainAccess`): after a revocation,
 * the chains whose webhook endpoints are to be disabled (docs/contract.md "History and events").
 */
export async function deadChains(
  keys: KeyStore,
  ids: readonly string[],
  now: Date,
): Promise<Map<string, KeyRefusal>> {
  const records = await keys.list();
  const access = chainAccess(records, now);
  const dead = new Map<string, KeyRefusal>();
  for (const record of records) {
    if (!ids.includes(keyIdOf(record.keyDigest))) continue;
    const chain = record.firstKeyId ?? keyIdOf(record.keyDigest);
    const chainState = access.get(chain);
    if (chainState && !chainState.live) dead.set(chain, chainState.reason);
  }
  return dead;
}

/** What {@link rotateKey} did: the new key (shown once), its id, and when the old key stops working. */
export interface Rotation {
  apiKey: string;
  newId: string;
  oldExpiresAt: Date;
}

/**
 * Rotates the active key with id `id`: a new key with the same name, scopes and throttle, in the old key's
 * rotation chain (the chain's first key id, which scopes Idempotency-Keys), valid until `expiresAt` (none when
 * the old key had none), and the old key made to expire at `graceEnd` (or earlier, if it already expires before).
 * @throws KeyToolError when no active key has that id.
 */
export async function rotateKey(
  keys: KeyStore,
  id: string,
  options: {
    now: Date;
    expiresAt?: Date;
    graceEnd: Date;
    allScopes: readonly Scope[];
    gateway?: GatewayKeys;
  },
): Promise<Rotation> {
  const old = (await keys.list()).find((record) => keyIdOf(record.keyDigest) === id);
  if (!old || keyStateAt(old, options.now) !== 'active')
    throw new KeyToolError(`no active key with the id "${id}"`);
  const throttle = throttleOf(old);
  const apiKey = await createKey(
    keys,
    {
      name: old.name,
      firstKeyId: old.firstKeyId ?? keyIdOf(old.keyDigest),
      now: options.now,
      ...(old.expiresAt !== undefined && options.expiresAt ? { expiresAt: options.expiresAt } : {}),
      scopes: old.scopes ?? options.allScopes,
      ...(throttle ? { throttle } : {}),
    },
    options.gateway,
  );
  await keys.expireBy(old.keyDigest, options.graceEnd);
  const stored = await keys.get(old.keyDigest);
  return {
    apiKey,
    newId: keyIdOf(apiKeyDigest(apiKey)),
    oldExpiresAt: new Date(stored?.expiresAt ?? options.graceEnd.toISOString()),
  };
}

/**
 * Gives every active key that has no API Gateway API key one, in the usage plan of its throttle: the keys stored
 * before per-key throttling existed (API Gateway refuses a key without one, once methods require API keys).
 * @returns the ids of the keys it added.
 */
export async function syncGatewayKeys(keys: KeyStore, gateway: GatewayKeys, now: Date): Promise<string[]> {
  const added: string[] = [];
  for (const record of await keys.list()) {
    if (keyStateAt(record, now) !== 'active' || (await gateway.has(record.keyDigest))) continue;
    await gateway.add(record.keyDigest, record.name, throttleOf(record));
    added.push(keyIdOf(record.keyDigest));
  }
  return added;
}
