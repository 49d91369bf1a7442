/**
 * Loading an inventory file into a table: the import tool's work, also used by the local server's seeding.
 */
import { readFile } from 'node:fs/promises';
import type { InventoryStore } from '#lib/inventory/store.ts';
import { InventoryFileError, inventoryFileFormat, parseInventoryFile } from './inventory-file.ts';

/** Entries written between two progress reports. */
const chunkSize = 1000;

/**
 * Validates every row of the JSON or CSV file at `path`, then writes the entries (create or replace).
 * `onProgress(written, total)` is called after each chunk of {@link chunkSize} entries.
 * @returns the number of entries written.
 * @throws InventoryFileError when the extension is neither `.json` nor `.csv` or any row is invalid (then
 *   nothing is written); the store's errors while writing.
 */
export async function importInventoryFile(
  path: string,
  store: InventoryStore,
  onProgress?: (written: number, total: number) => void,
): Promise<number> {
  const format = inventoryFileFormat(path);
  if (!format) throw new InventoryFileError([`${path}: the file name must end in .json or .csv`], false);
  const items = parseInventoryFile(await readFile(path, 'utf8'), format);
  for (let start = 0; start < items.length; start += chunkSize) {
    await store.putMany(items.slice(start, start + chunkSize));
    onProgress?.(Math.min(start + chunkSize, items.length), items.length);
  }
  return items.length;
}
