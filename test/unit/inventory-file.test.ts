/**
 * The import tool's JSON rows (lib/admin/inventory-file.ts) read integers from their source text, as the API
 * reads request bodies (docs/contract.md "Integers in request bodies", "Operator tooling").
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTemporaryDirs, temporaryDir } from 'local-aws/testing';
import { afterAll, describe, expect, test } from 'vitest';
import { InventoryFileError, inventoryRows, validateInventoryFile } from '#lib/admin/inventory-file.ts';

afterAll(() => removeTemporaryDirs());

/** The problems reported for a JSON file holding `rows`, or the entries when it is valid. */
async function read(rows: string) {
  const path = join(await temporaryDir('inventory-file-'), 'rows.json');
  await writeFile(path, `[${rows}]`);
  try {
    await validateInventoryFile(path, 'json');
    return await Array.fromAsync(inventoryRows(path, 'json'));
  } catch (error) {
    expect(error).toBeInstanceOf(InventoryFileError);
    return (error as InventoryFileError).problems;
  }
}

describe('JSON inventory files judge integers on the source text', () => {
  test('petId 5.0 and 5e0 are the pet 5; 9223372036854775807.0 is exact', async () => {
    expect(
      await read(
        '{"petId":5.0,"quantity":1,"status":"sold"},{"petId":6e0,"quantity":2.0,"status":"sold"},' +
          '{"petId":9223372036854775807.0,"quantity":3,"status":"sold"}',
      ),
    ).toStrictEqual([
      { petId: '5', quantity: 1, status: 'sold' },
      { petId: '6', quantity: 2, status: 'sold' },
      { petId: '9223372036854775807', quantity: 3, status: 'sold' },
    ]);
  });

  test.each([
    {
      rule: 'a petId that is not an integer by its source text (9007199254740993.5, 1e-400) is refused',
      rows: '{"petId":9007199254740993.5,"quantity":1,"status":"sold"},{"petId":1e-400,"quantity":1,"status":"sold"}',
      problem: 'petId must be an integer from -9223372036854775808 to 9223372036854775807',
    },
    {
      rule: 'a quantity of 4.9999999999999999 or 1e-400 is refused, not rounded to 5 or 0',
      rows: '{"petId":1,"quantity":4.9999999999999999,"status":"sold"},{"petId":2,"quantity":1e-400,"status":"sold"}',
      problem: 'quantity must be an integer from 0 to 2147483647',
    },
  ])('$rule', async ({ rows, problem }) => {
    expect(await read(rows)).toStrictEqual([`row 1: ${problem}`, `row 2: ${problem}`]);
  });
});
