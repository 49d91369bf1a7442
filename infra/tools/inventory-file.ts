/**
 * Inventory files for the import tool: JSON or CSV rows of `petId`, `quantity`, `status`, each validated by
 * the API's own rules (docs/contract.md "Operator tooling"): petId a canonical int64 (`pet-id.ts`), quantity an
 * integer from 0 to 2147483647 (`quantity.ts`), status a PetStatus, no other member, no petId twice.
 *
 * - JSON: an array of objects. petId is a JSON integer (read exactly, from its source text, even beyond
 *   2^53; `5.0` is 5) or a decimal string; quantity a JSON integer, judged on its source text too
 *   (docs/contract.md "Integers in request bodies").
 * - CSV: a header row naming the three columns (any order), then one row per entry; no other column.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { type InventoryItem, isPetStatus, petStatuses } from '#lib/inventory/inventory-item.ts';
import { petIdRule, toPetId } from '#lib/inventory/pet-id.ts';
import { isQuantity, quantityRule } from '#lib/inventory/quantity.ts';
import { exactIntegers, InexactNumber, jsonInteger } from '#lib/json-integers.ts';

/**
 * A file that cannot be imported: `problems` lists each invalid row as `row N: reason` (rows count from 1,
 * header excluded), or holds the one problem of the whole file (`rows` false: not a row count in the message).
 */
export class InventoryFileError extends Error {
  readonly problems: string[];

  constructor(problems: string[], rows = true) {
    super(rows ? `${problems.length} invalid row(s):\n${problems.join('\n')}` : problems.join('\n'));
    this.name = 'InventoryFileError';
    this.problems = problems;
  }
}

const columns = ['petId', 'quantity', 'status'];

/** Validates one row whose values are as read (JSON values, or CSV strings with `fromCsv`). */
function validateRow(value: unknown, fromCsv: boolean): InventoryItem | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be an object with the members petId, quantity and status';
  }
  const row = value as Record<string, unknown>;
  const extra = Object.keys(row).filter((key) => !columns.includes(key));
  if (extra.length > 0) return `unexpected member(s) ${extra.join(', ')}`;
  const petId = typeof row.petId === 'string' ? toPetId(row.petId) : undefined;
  if (petId === undefined) return petIdRule;
  const quantity =
    fromCsv && typeof row.quantity === 'string' && /^(0|[1-9][0-9]*)$/.test(row.quantity)
      ? Number(row.quantity)
      : row.quantity;
  if (!isQuantity(quantity)) return quantityRule;
  if (!isPetStatus(row.status)) return `status must be one of ${petStatuses.join(', ')}`;
  return { petId, quantity, status: row.status };
}

/**
 * A `JSON.parse` reviver: an integer petId becomes its decimal text (exact over the whole int64 range), any
 * other number an exact integer or an `InexactNumber` (lib/json-integers.ts).
 */
function rowReviver(key: string, value: unknown, context?: { source?: string }): unknown {
  if (key !== 'petId' || typeof value !== 'number' || context?.source === undefined) {
    return exactIntegers(key, value, context);
  }
  return jsonInteger(context.source)?.toString() ?? new InexactNumber(context.source);
}

/** JSON rows, parsed with {@link rowReviver}. */
function jsonRows(text: string): unknown[] {
  // A UTF-8 byte order mark (as some editors save) is skipped, as it is for CSV.
  const rows: unknown = JSON.parse(text.replace(/^\uFEFF/, ''), rowReviver);
  if (!Array.isArray(rows))
    throw new InventoryFileError(['the file must hold a JSON array of entries'], false);
  return rows;
}

function csvRows(text: string): unknown[] {
  return parseCsv(text, { columns: true, skip_empty_lines: true, bom: true }) as Record<string, unknown>[];
}

/**
 * The entries of an inventory file's text.
 * @param format `json` or `csv`.
 * @throws InventoryFileError listing every invalid row (nothing is imported from a file with one); the JSON or
 *   CSV parser's error when the text is not well-formed.
 */
export function parseInventoryFile(text: string, format: 'json' | 'csv'): InventoryItem[] {
  const rows = format === 'json' ? jsonRows(text) : csvRows(text);
  const items: InventoryItem[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    const result = validateRow(row, format === 'csv');
    if (typeof result === 'string') problems.push(`row ${index + 1}: ${result}`);
    else if (seen.has(result.petId)) problems.push(`row ${index + 1}: petId ${result.petId} appears twice`);
    else {
      seen.add(result.petId);
      items.push(result);
    }
  });
  if (problems.length > 0) throw new InventoryFileError(problems);
  return items;
}

/** The format of a file, from its extension (`.json` or `.csv`); undefined for any other. */
export function inventoryFileFormat(path: string): 'json' | 'csv' | undefined {
  const extension = path.toLowerCase().split('.').pop();
  return extension === 'json' || extension === 'csv' ? extension : undefined;
}
