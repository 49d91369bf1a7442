/** The expected inventory table kept beside the service under test (docs/contract.md "Inventory semantics"). */
import { afterAll, beforeAll, expect } from 'vitest';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import {
  type ContractBatchChange,
  type ContractInventoryUpdate,
  contractBatchJson,
  contractMeets,
  expectContractError,
  inventoryItemJson,
  type ObservedResponse,
} from './contract-oracle.ts';
import { type RawClient, rawClient } from './raw-http.ts';
import { changeTimeWithin, type TimeWindow } from './raw-tables.ts';
import { startTestApi, storedEntry, type TestApi, type TestApiOptions } from './test-api.ts';

/** One entry, as the contract describes it (petId as its canonical decimal string). */
export interface ModelItem {
  petId: string;
  quantity: number;
  status: string;
  /** The reason of the last update the service accepted, if any. */
  reason?: string;
  /** The id of the API key that sent that update. */
  keyId?: string;
}

/**
 * An entry as the model expects it stored: its last change's `reason`, `keyId` (absent for the tools) and
 * `changedAt`, the recorded time once a table read showed it, else the window of the write that set it
 * (docs/architecture.md "Data layout").
 */
interface ExpectedItem extends ModelItem {
  reason: string;
  changedAt: string | TimeWindow;
}

/**
 * Expected table state: each request the contract says succeeds is applied to it, every other request leaves
 * it as it is, and after each request the real table (read with a raw Scan, `TestApi.tableItems`) must equal it.
 */
export class InventoryModel {
  readonly #items = new Map<string, ExpectedItem>();
  /** The id of the API key modelled updates are sent with unless they name another. */
  readonly #keyId: string;

  /**
   * `items` as the service under test was started with them (`startTestApi({ inventory })`, the import's
   * writer: reason `import`, no keyId) within `stored`; `keyId` the id of the suite's API key.
   */
  constructor(items: readonly ModelItem[], keyId: string, stored: TimeWindow) {
    for (const { petId, quantity, status } of items) {
      this.#items.set(petId, { petId, quantity, status, reason: 'import', changedAt: stored });
    }
    this.#keyId = keyId;
  }

  /** The entry for `petId` (without its `changedAt`), or undefined when there is none. */
  get(petId: string): ModelItem | undefined {
    const item = this.#items.get(petId);
    if (!item) return undefined;
    const { changedAt, ...entry } = item;
    return entry;
  }

  /**
   * Records a successful update (docs/contract.md "Inventory semantics"): the values it names change, the
   * others stay, and the entry records the update's reason (default `adjustment`) and the id of the key that
   * sent it (default the suite's key), written within `window` (the request's: `RawResponse.window`, raw-http.ts).
   */
  applyUpdate(
    petId: string,
    update: Partial<ContractInventoryUpdate>,
    window: TimeWindow,
    keyId = this.#keyId,
  ): ModelItem {
    const item = this.#items.get(petId);
    if (!item) throw new Error(`the model has no entry ${petId}`);
    if (update.quantity !== undefined) item.quantity = update.quantity;
    if (update.status !== undefined) item.status = update.status;
    item.reason = update.reason ?? 'adjustment';
    item.keyId = keyId;
    item.changedAt = window;
    return this.get(petId) as ModelItem;
  }

  /**
   * Asserts the contract's answer to `update` of `petId`, valid in every other respect: 404 `not_found` when
   * the model has no entry for `petId`, else 200 with the updated entry as JSON (the update is then applied to
   * the model).
   */
  expectUpdateAnswer(
    response: ObservedResponse & { window: TimeWindow },
    petId: string,
    update: Partial<ContractInventoryUpdate>,
  ): void {
    if (this.get(petId) === undefined) {
      expectContractError(response, 404);
    } else {
      expect(response.status, response.text).toBe(200);
      expect(response.contentType).toBe('application/json');
      const { petId: id, quantity, status } = this.applyUpdate(petId, update, response.window);
      expect(response.text).toBe(inventoryItemJson({ petId: id, quantity, status }));
    }
  }

  /**
   * Asserts the contract's answer to a valid batch of `changes` (docs/contract.md "Inventory semantics"): at the
   * first element whose pet has no entry, 404 naming it; at the first whose `ifMatch` its entry does not meet,
   * 412 naming it (whichever index comes first); nothing is applied then. Else 200 with every entry after the
   * batch, in the request's order, each with its `etag`, and every change applied to the model.
   */
  expectBatchAnswer(
    response: ObservedResponse & { window: TimeWindow },
    changes: readonly ContractBatchChange[],
  ): void {
    for (const [index, { petId, ifMatch }] of changes.entries()) {
      const entry = this.get(petId);
      if (!entry) {
        expectContractError(response, 404, `changes[${index}]: no inventory entry for petId ${petId}`);
        return;
      }
      if (!contractMeets(ifMatch, entry)) {
        const message = `changes[${index}]: ifMatch does not match the current entry of petId ${petId}`;
        expectContractError(response, 412, message);
        return;
      }
    }
    expect(response.status, response.text).toBe(200);
    expect(response.contentType).toBe('application/json');
    const items = changes.map(({ petId, ifMatch: _, ...update }) => {
      const { quantity, status } = this.applyUpdate(petId, update, response.window);
      return { petId, quantity, status };
    });
    expect(response.text).toBe(contractBatchJson(items));
  }

  /**
   * Asserts that the table holds exactly the model's entries and nothing else, each with the last change the
   * model expects: a `changedAt` the model has seen must be unchanged, one set since within its write's window.
   * The times seen are then kept, so a later refused write that touches an entry fails the next check.
   */
  async expectTable(api: TestApi, context?: string): Promise<void> {
    const items = [...this.#items.values()].sort((a, b) => (BigInt(a.petId) < BigInt(b.petId) ? -1 : 1));
    const expected = items.map(({ petId, quantity, status, reason, keyId, changedAt }) =>
      storedEntry(petId, quantity, status, {
        reason,
        keyId,
        changedAt: typeof changedAt === 'string' ? changedAt : changeTimeWithin(changedAt),
      }),
    );
    const stored = await api.tableItems();
    expect(stored, context).toEqual(expected);
    items.forEach((item, index) => {
      item.changedAt = stored[index]?.changedAt as string;
    });
  }
}

/** A service under test started with known entries, a raw client on it, and the model of its table. */
export interface ModelledApi {
  api: TestApi;
  client: RawClient;
  model: InventoryModel;
  /** Closes the client's connections, then the service. */
  close(): Promise<void>;
}

/**
 * A {@link RawClient} on `api` and the {@link InventoryModel} of `items`, the entries `api` was started with
 * (`startTestApi({ inventory: items })`) within `stored`: the setup of the property-based hostile suites.
 */
export function modelledApi(api: TestApi, items: readonly ModelItem[], stored: TimeWindow): ModelledApi {
  const client = rawClient(api.baseUrl);
  return {
    api,
    client,
    model: new InventoryModel(items, api.keyId, stored),
    async close() {
      client.close();
      await api.close();
    },
  };
}

/**
 * Registers the file's hooks: before its tests, starts the service under test with `items`
 * (`startTestApi({ inventory: items, events })`) and models it ({@link modelledApi}); after them, closes it.
 * The members of the returned object are set once the first hook has run.
 */
export function modelledSuite(
  items: readonly InventoryItem[],
  options: Pick<TestApiOptions, 'events'> = {},
): ModelledApi {
  const suite = {} as ModelledApi;
  beforeAll(async () => {
    const from = Date.now();
    const api = await startTestApi({ ...options, inventory: items });
    Object.assign(suite, modelledApi(api, items, { from, to: Date.now() }));
  });
  afterAll(() => suite.close?.());
  return suite;
}
