/** Inventory files, JSON or CSV, streamed, each row by the API's rules: docs/operating.md "Importing inventory". */
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import { HttpError } from '#lib/http/errors.ts';
import { type InventoryItem, isPetStatus, petStatuses } from '#lib/inventory/inventory-item.ts';
import type { PetDetails } from '#lib/inventory/pet-details.ts';
import { petIdRule, toPetId } from '#lib/inventory/pet-id.ts';
import { isQuantity, maxQuantity, quantityRule } from '#lib/inventory/quantity.ts';
import { exactIntegers, InexactNumber, jsonInteger } from '#lib/json-integers.ts';
import { parsePetDetails } from '#lib/pets/pet.ts';

/**
 * A file that cannot be imported: `problems` lists invalid rows as `row N: reason` (rows count from 1, header
 * excluded; at most {@link reportedProblems}, the message gives the total), or holds the one problem of the
 * whole file (`rows` false: not a row count in the message).
 */
export class InventoryFileError extends Error {
  readonly problems: string[];

  constructor(problems: string[], rows = true, total = problems.length) {
    const more = total > problems.length ? `\n... and ${total - problems.length} more` : '';
    super(rows ? `${total} invalid row(s):\n${problems.join('\n')}${more}` : problems.join('\n'));
    this.name = 'InventoryFileError';
    this.problems = problems;
  }
}

/** One valid row: its inventory entry and, when the row has any, its pet details. */
export interface InventoryRow extends InventoryItem {
  details?: PetDetails;
}

/** Invalid rows named in an {@link InventoryFileError} at most (the rest are counted). */
export const reportedProblems = 1000;

const detailColumns = ['name', 'category', 'photoUrls', 'tags'] as const;
const columns: readonly string[] = ['petId', 'quantity', 'status', 'reorderPoint', ...detailColumns];
/** What a CSV cell of a JSON-valued detail looks like. */
const cellExamples = {
  category: '{"id": 1, "name": "Dogs"}',
  photoUrls: '["https://example.com/rex.jpg"]',
  tags: '[{"id": 2, "name": "friendly"}]',
};

/** The pet details of a row, or the problem's message; undefined when the row has none. */
function rowDetails(row: Record<string, unknown>, fromCsv: boolean): PetDetails | string | undefined {
  const given: Record<string, unknown> = {};
  for (const column of detailColumns) {
    const value = row[column];
    if (value === undefined || (fromCsv && value === '')) continue;
    if (!fromCsv || column === 'name') given[column] = value;
    else {
      try {
        given[column] = JSON.parse(value as string, exactIntegers);
      } catch {
        return `${column} must be JSON such as ${cellExamples[column]}`;
      }
    }
  }
  if (Object.keys(given).length === 0) return undefined;
  try {
    return parsePetDetails(given);
  } catch (error) {
    if (error instanceof HttpError) return error.message;
    throw error;
  }
}

/** A CSV cell of decimal digits as its number; any other value as it is (a JSON value is judged as read). */
function integerOf(value: unknown, fromCsv: boolean): unknown {
  return fromCsv && typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value) ? Number(value) : value;
}

/** What {@link fileRows} gives for an element of a JSON array that is not JSON itself. */
const notJson = Symbol('not JSON');

/** Validates one row whose values are as read (JSON values, or CSV strings with `fromCsv`). */
function validateRow(value: unknown, fromCsv: boolean): InventoryRow | string {
  if (value === notJson) return 'not valid JSON';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'must be an object with the members petId, quantity and status';
  }
  const row = value as Record<string, unknown>;
  const extra = Object.keys(row).filter((key) => !columns.includes(key));
  if (extra.length > 0) return `unexpected member(s) ${extra.join(', ')}`;
  const petId = typeof row.petId === 'string' ? toPetId(row.petId) : undefined;
  if (petId === undefined) return petIdRule;
  const quantity = integerOf(row.quantity, fromCsv);
  if (!isQuantity(quantity)) return quantityRule;
  if (!isPetStatus(row.status)) return `status must be one of ${petStatuses.join(', ')}`;
  const noPoint = row.reorderPoint === undefined || (fromCsv && row.reorderPoint === '');
  const reorderPoint = noPoint ? undefined : integerOf(row.reorderPoint, fromCsv);
  if (!noPoint && !isQuantity(reorderPoint)) {
    return `reorderPoint must be an integer from 0 to ${maxQuantity}, or absent (empty in CSV) for none`;
  }
  const details = rowDetails(row, fromCsv);
  if (typeof details === 'string') return details;
  return {
    petId,
    quantity,
    status: row.status,
    ...(reorderPoint === undefined ? {} : { reorderPoint }),
    ...(details === undefined ? {} : { details }),
  } as InventoryRow;
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

const notAnArray = () => new InventoryFileError(['the file must hold a JSON array of entries'], false);

/**
 * The source text of each element of the JSON array that `chunks` spell, in order, without holding more than
 * one element: a scan of the text that tracks strings and nesting. Not a streaming JSON library: those hand
 * numbers over as doubles, and each element is parsed by `JSON.parse` with {@link rowReviver}, which reads
 * integers from their source text. A leading byte order mark is skipped.
 * @throws InventoryFileError when the text is not a JSON array; SyntaxError when it ends inside it.
 */
async function* jsonArrayElements(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let state: 'before' | 'inside' | 'after' = 'before';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let element = '';
  let elements = 0;
  for await (const chunk of chunks) {
    let from = 0;
    for (let at = 0; at < chunk.length; at++) {
      const char = chunk[at] as string;
      if (state !== 'inside') {
        if (/[ \t\n\r]/.test(char) || (char === '\uFEFF' && state === 'before' && elements === 0)) continue;
        if (state === 'after' || char !== '[') throw notAnArray();
        state = 'inside';
        from = at + 1;
      } else if (inString) {
        if (escaped) escaped = false;
        else if (char === '\\') escaped = true;
        else if (char === '"') inString = false;
      } else if (char === '"') inString = true;
      else if (char === '{' || char === '[') depth++;
      else if ((char === '}' || char === ']') && depth > 0) depth--;
      else if (depth === 0 && (char === ',' || char === ']')) {
        const text = element + chunk.slice(from, at);
        element = '';
        from = at + 1;
        if (char === ']') {
          state = 'after';
          if (text.trim() === '' && elements === 0) continue;
        }
        if (text.trim() === '') throw new SyntaxError(`an empty array element after element ${elements}`);
        elements++;
        yield text;
      }
    }
    if (state === 'inside') element += chunk.slice(from);
  }
  if (state === 'before') throw notAnArray();
  if (state === 'inside') throw new SyntaxError('Unexpected end of JSON input: the array is not closed');
}

/**
 * The rows of the file at `path` as read, one at a time: JSON values ({@link notJson} for an element that is not
 * JSON), or CSV records (header names as keys).
 * @throws SyntaxError (JSON) or the CSV parser's error when the file is not well-formed; the file system's
 *   error when it cannot be read.
 */
async function* fileRows(path: string, format: 'json' | 'csv'): AsyncGenerator<unknown> {
  if (format === 'json') {
    for await (const text of jsonArrayElements(createReadStream(path, { encoding: 'utf8' }))) {
      try {
        yield JSON.parse(text, rowReviver);
      } catch (error) {
        if (!(error instanceof SyntaxError)) throw error;
        yield notJson;
      }
    }
    return;
  }
  // pipeline() destroys the parser with the file's error (a missing file), which its iteration then throws.
  yield* pipeline(
    createReadStream(path),
    parseCsv({ columns: true, skip_empty_lines: true, bom: true }),
    () => {},
  );
}

/**
 * Reads every row of the file at `path` and validates it, holding one row at a time.
 * @param format `json` or `csv`.
 * @returns the number of rows (all valid).
 * @throws InventoryFileError naming the invalid rows (petIds that appear twice included); the parser's error
 *   when the file is not well-formed.
 */
export async function validateInventoryFile(path: string, format: 'json' | 'csv'): Promise<number> {
  const problems: [number, string][] = [];
  let invalid = 0;
  const report = (row: number, problem: string) => {
    invalid++;
    if (problems.length < reportedProblems) problems.push([row, `row ${row}: ${problem}`]);
  };
  let petIds = new BigInt64Array(1024);
  let count = 0;
  let row = 0;
  for await (const value of fileRows(path, format)) {
    row++;
    const result = validateRow(value, format === 'csv');
    if (typeof result === 'string') report(row, result);
    else {
      if (count === petIds.length) {
        const grown = new BigInt64Array(petIds.length * 2);
        grown.set(petIds);
        petIds = grown;
      }
      petIds[count++] = BigInt(result.petId);
    }
  }
  const sorted = petIds.subarray(0, count).sort();
  const twice = new Set<bigint>();
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) twice.add(sorted[i] as bigint);
  if (twice.size > 0) {
    // A second read names the rows of the petIds seen before.
    const seen = new Set<bigint>();
    row = 0;
    for await (const value of fileRows(path, format)) {
      row++;
      const result = validateRow(value, format === 'csv');
      if (typeof result === 'string' || !twice.has(BigInt(result.petId))) continue;
      if (seen.has(BigInt(result.petId))) report(row, `petId ${result.petId} appears twice`);
      else seen.add(BigInt(result.petId));
    }
  }
  if (invalid > 0) {
    problems.sort(([a], [b]) => a - b);
    throw new InventoryFileError(
      problems.slice(0, reportedProblems).map(([, problem]) => problem),
      true,
      invalid,
    );
  }
  return row;
}

/**
 * The entries of the file at `path`, one at a time, for a file {@link validateInventoryFile} accepted.
 * @throws InventoryFileError when a row is invalid now (the file changed since it was validated).
 */
export async function* inventoryRows(path: string, format: 'json' | 'csv'): AsyncGenerator<InventoryRow> {
  let row = 0;
  for await (const value of fileRows(path, format)) {
    row++;
    const result = validateRow(value, format === 'csv');
    if (typeof result === 'string') {
      throw new InventoryFileError([`row ${row}: ${result} (the file changed while it was imported)`]);
    }
    yield result;
  }
}

/** The format of a file, from its extension (`.json` or `.csv`); undefined for any other. */
export function inventoryFileFormat(path: string): 'json' | 'csv' | undefined {
  const extension = path.toLowerCase().split('.').pop();
  return extension === 'json' || extension === 'csv' ? extension : undefined;
}
