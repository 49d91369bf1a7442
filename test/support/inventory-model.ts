/** The expected inventory table kept beside the service under test (docs/contract.md "Inventory semantics"). */
import { afterAll, beforeAll, expect } from 'vitest';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import {
  type ContractInventoryUpdate,
  expectContractError,
  inventoryItemJson,
  type ObservedResponse,
} from './contract-oracle.ts';
import { type RawClient, rawClient } from './raw-http.ts';
import { startTestApi, storedEntry, type TestApi } from './test-api.ts';

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
 * Expected table state: each request the contract says succeeds is applied to it, every other request leaves
 * it as it is, and after each request the real table (read with a raw Scan, `TestApi.tableItems`) must equal it.
 */
export class InventoryModel {
  readonly #items = new Map<string, ModelItem>();
  /** The id of the API key modelled updates are sent with unless they name another. */
  readonly #keyId: string;

  constructor(items: readonly ModelItem[], keyId: string) {
    for (const item of items) this.#items.set(item.petId, { ...item });
    this.#keyId = keyId;
  }

  /** The entry for `petId`, or undefined when there is none. */
  get(petId: string): ModelItem | undefined {
    const item = this.#items.get(petId);
    return item && { ...item };
  }

  /**
   * Records a successful update (docs/contract.md "Inventory semantics"): the values it names change, the
   * others stay, and the entry records the update's reason (default `adjustment`) and the id of the key that
   * sent it (default the suite's key).
   */
  applyUpdate(petId: string, update: Partial<ContractInventoryUpdate>, keyId = this.#keyId): ModelItem {
    const item = this.#items.get(petId);
    if (!item) throw new Error(`the model has no entry ${petId}`);
    if (update.quantity !== undefined) item.quantity = update.quantity;
    if (update.status !== undefined) item.status = update.status;
    item.reason = update.reason ?? 'adjustment';
    item.keyId = keyId;
    return { ...item };
  }

  /**
   * Asserts the contract's answer to `update` of `petId`, valid in every other respect: 404 `not_found` when
   * the model has no entry for `petId`, else 200 with the updated entry as JSON (the update is then applied to
   * the model).
   */
  expectUpdateAnswer(
    response: ObservedResponse,
    petId: string,
    update: Partial<ContractInventoryUpdate>,
  ): void {
    if (this.get(petId) === undefined) {
      expectContractError(response, 404);
    } else {
      expect(response.status, response.text).toBe(200);
      expect(response.contentType).toBe('application/json');
      const { petId: id, quantity, status } = this.applyUpdate(petId, update);
      expect(response.text).toBe(inventoryItemJson({ petId: id, quantity, status }));
    }
  }

  /** Asserts that the table holds exactly the model's entries and nothing else. */
  async expectTable(api: TestApi, context?: string): Promise<void> {
    const expected = [...this.#items.values()]
      .sort((a, b) => (BigInt(a.petId) < BigInt(b.petId) ? -1 : 1))
      .map(({ petId, quantity, status, reason, keyId }) =>
        storedEntry(petId, quantity, status, reason === undefined ? undefined : { reason, keyId }),
      );
    expect(await api.tableItems(), context).toEqual(expected);
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
 * (`startTestApi({ inventory: items })`): the setup of the property-based hostile suites.
 */
export function modelledApi(api: TestApi, items: readonly ModelItem[]): ModelledApi {
  const client = rawClient(api.baseUrl);
  return {
    api,
    client,
    model: new InventoryModel(items, api.keyId),
    async close() {
      client.close();
      await api.close();
    },
  };
}

/**
 * Registers the file's hooks: before its tests, starts the service under test with `items`
 * (`startTestApi({ inventory: items })`) and models it ({@link modelledApi}); after them, closes it. The
 * members of the returned object are set once the first hook has run.
 */
export function modelledSuite(items: readonly InventoryItem[]): ModelledApi {
  const suite = {} as ModelledApi;
  beforeAll(async () => {
    Object.assign(suite, modelledApi(await startTestApi({ inventory: items }), items));
  });
  afterAll(() => suite.close?.());
  return suite;
}
