/**
 * The expected state of the inventory table, kept by a test beside the service: each request the contract
 * says succeeds is applied to the model, every other request leaves it as it is, and after each request
 * the real table (read with a raw Scan, see `TestApi.tableItems`) must equal it.
 */
import { expect } from 'vitest';
import type { TestApi } from './local-api.ts';

/** One entry, as the contract describes it (petId as its canonical decimal string). */
export interface ModelItem {
  petId: string;
  quantity: number;
  status: string;
}

/** Expected table state; see the module docstring. */
export class InventoryModel {
  readonly #items = new Map<string, ModelItem>();

  constructor(items: readonly ModelItem[]) {
    for (const item of items) this.#items.set(item.petId, { ...item });
  }

  /** The entry for `petId`, or undefined when there is none. */
  get(petId: string): ModelItem | undefined {
    const item = this.#items.get(petId);
    return item && { ...item };
  }

  /** Records a successful update: the quantity changes, the status stays (contract.md "Semantics"). */
  setQuantity(petId: string, quantity: number): ModelItem {
    const item = this.#items.get(petId);
    if (!item) throw new Error(`the model has no entry ${petId}`);
    item.quantity = quantity;
    return { ...item };
  }

  /** Asserts that the table holds exactly the model's entries and nothing else. */
  async expectTable(api: TestApi, context?: string): Promise<void> {
    const expected = [...this.#items.values()]
      .sort((a, b) => (BigInt(a.petId) < BigInt(b.petId) ? -1 : 1))
      .map(({ petId, quantity, status }) => ({ petId, quantity: String(quantity), status }));
    expect(await api.tableItems(), context).toEqual(expected);
  }
}
