/** Loads an inventory file into a table: the import tool's work, also the local server's seeding. */
import { IncompleteWriteError } from '#lib/inventory/batch-put.ts';
import type { InventoryStore } from '#lib/inventory/store.ts';
import {
  InventoryFileError,
  type InventoryRow,
  inventoryFileFormat,
  inventoryRows,
  validateInventoryFile,
} from './inventory-file.ts';

/** Entries written between two progress reports. */
const chunkSize = 1000;

/**
 * An import that stopped part-way: `written` of `total` entries were written (docs/contract.md "Operator
 * tooling"). Writing the same file again converges (each entry is a create-or-replace), so it is the way to
 * resume.
 */
export class ImportIncompleteError extends Error {
  readonly written: number;
  readonly total: number;

  constructor(written: number, total: number, reason: string) {
    super(
      `stopped after writing ${written} of ${total} entries: ${reason}. ` +
        'Importing is idempotent: run the same command again to complete it.',
    );
    this.name = 'ImportIncompleteError';
    this.written = written;
    this.total = total;
  }
}

/**
 * Validates every row of the JSON or CSV file at `path` (a first read), then writes the entries (create or
 * replace) as a second read streams them, {@link chunkSize} at a time: memory does not grow with the file.
 * `onProgress(written, total)` is called after each chunk.
 * @returns the number of entries written.
 * @throws InventoryFileError when the extension is neither `.json` nor `.csv` or any row is invalid (then
 *   nothing is written); ImportIncompleteError when the store stops part-way (bounded retries exhausted or
 *   DynamoDB failing), with the number written.
 */
export async function importInventoryFile(
  path: string,
  store: InventoryStore,
  onProgress?: (written: number, total: number) => void,
): Promise<number> {
  const format = inventoryFileFormat(path);
  if (!format) throw new InventoryFileError([`${path}: the file name must end in .json or .csv`], false);
  const total = await validateInventoryFile(path, format);
  let written = 0;
  let chunk: InventoryRow[] = [];
  const write = async () => {
    try {
      await store.putMany(chunk);
    } catch (error) {
      if (!(error instanceof IncompleteWriteError)) throw error;
      throw new ImportIncompleteError(written + error.written, total, error.message);
    }
    written += chunk.length;
    chunk = [];
    onProgress?.(written, total);
  };
  for await (const row of inventoryRows(path, format)) {
    chunk.push(row);
    if (chunk.length === chunkSize) await write();
  }
  if (chunk.length > 0) await write();
  return total;
}
