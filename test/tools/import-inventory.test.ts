/**
 * The import tool (`npm run import`, ops/import-inventory.ts) run as a real child process against the
 * local store of a running local service (docs/contract.md "Operator tooling"): every row is validated by the API's
 * rules, a file with an invalid row names it and writes nothing, progress goes to stderr. The service runs in
 * this process on a temporary data folder (not seeded, so the table holds only what a test imports) and
 * advertises its DynamoDB in `<dataDir>/endpoint`, which the tool finds from `DATA_DIR` alone.
 */

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryDir } from 'local-aws/testing';
import { beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { type ChildResult, childEnv, runNode, scripts } from '#test/support/child-process.ts';
import {
  clearInventory,
  importedRecord,
  inventoryRecord,
  putItems,
  scanTable,
} from '#test/support/raw-tables.ts';
import { cleanUpAfterAll } from '#test/support/suite-cleanup.ts';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';
import { runningStore, storeVariables, testTableNames } from '#test/support/test-dynamodb.ts';

let filesDir: string;
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ onDisk: true });
  filesDir = await temporaryDir('import-files-');
});
cleanUpAfterAll(() => api?.close());

beforeEach(async () => {
  await clearInventory(api.dynamoDb, testTableNames.inventory);
});

/** Writes `text` to a new file `name` in the files folder and returns its path. */
async function file(name: string, text: string): Promise<string> {
  const path = join(filesDir, name);
  await writeFile(path, text);
  return path;
}

/** `npm run import -- <path>` on the local store of {@link api.dataDir}. */
function importFile(path: string): Promise<ChildResult> {
  return runNode(scripts.import, [path], { env: childEnv({ DATA_DIR: api.dataDir }) });
}

/** Asserts a successful import of `count` entries into the local store of {@link api.dataDir}, output and all. */
function expectImportedLocally(result: ChildResult, count: number): void {
  expect(result).toStrictEqual({
    code: 0,
    signal: null,
    stdout: `Imported ${count} entries into local store ${api.dataDir}.\n`,
    stderr: `\rimported ${count}/${count}\n`,
  });
}

/** Asserts a refused import: exit code 1, nothing on stdout and exactly `stderr`. */
function expectRefused(result: ChildResult, stderr: string): void {
  expect(result).toStrictEqual({ code: 1, signal: null, stdout: '', stderr });
}

/** The inventory table exactly as stored, sorted by petId. */
function inventoryTable() {
  return scanTable(api.dynamoDb, testTableNames.inventory);
}

describe('import --help', () => {
  test('exits 0 and describes the file argument, its formats and --env', async () => {
    const result = await runNode(scripts.import, ['--help'], { env: childEnv({}) });

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: import \[options\] <file>$/m);
    // commander wraps the description at the terminal width.
    expect(result.stdout.replace(/\s+/g, ' ')).toContain(
      'Import inventory entries (petId, quantity, status; optionally name, category, photoUrls, tags) from a JSON array or a CSV file',
    );
    expect(result.stdout).toMatch(/^ {2}file +a \.json or \.csv file$/m);
    expect(result.stdout).toMatch(
      /^ {2}--env <environment> +a deployed environment instead of the local store/m,
    );
  });
});

describe('import of a valid file writes exactly its entries', () => {
  test('CSV, including int64 extremes and petIds beyond 2^53', async () => {
    const rows: [string, number, string][] = [
      ['-9223372036854775808', 0, 'available'],
      ['0', 2147483647, 'pending'],
      ['42', 7, 'sold'],
      ['9007199254740993', 1, 'available'],
      ['9223372036854775807', 3, 'pending'],
    ];
    const path = await file(
      'valid.csv',
      `petId,quantity,status\n${rows.map((row) => `${row.join(',')}\n`).join('')}`,
    );

    const result = await importFile(path);

    expectImportedLocally(result, 5);
    expect(await inventoryTable()).toStrictEqual(rows.map((row) => importedRecord(...row)));
  });

  test('a reorderPoint column: a number is stored as the reorder point of the entry, an empty CSV cell or an absent JSON member none', async () => {
    const csv = await file('points.csv', 'petId,quantity,status,reorderPoint\n1,3,available,5\n2,4,sold,\n');
    expectImportedLocally(await importFile(csv), 2);
    const json = await file(
      'points.json',
      '[{"petId":3,"quantity":0,"status":"pending","reorderPoint":0},{"petId":4,"quantity":1,"status":"sold"}]',
    );
    expectImportedLocally(await importFile(json), 2);
    expect(await inventoryTable()).toStrictEqual([
      { ...importedRecord('1', 3, 'available'), reorderPoint: { N: '5' } },
      importedRecord('2', 4, 'sold'),
      { ...importedRecord('3', 0, 'pending'), reorderPoint: { N: '0' } },
      importedRecord('4', 1, 'sold'),
    ]);
  });

  test('CSV with the columns in another order', async () => {
    const path = await file('reordered.csv', 'status,petId,quantity\nsold,8,2\navailable,-8,0\n');

    const result = await importFile(path);

    expect(result.code).toBe(0);
    expect(await inventoryTable()).toStrictEqual([
      importedRecord('-8', 0, 'available'),
      importedRecord('8', 2, 'sold'),
    ]);
  });

  test('JSON, with petId 9223372036854775807 written as a JSON number kept digit for digit', async () => {
    const path = await file(
      'valid.json',
      `[
        {"petId": 9223372036854775807, "quantity": 5, "status": "available"},
        {"petId": -9223372036854775808, "quantity": 0, "status": "sold"},
        {"petId": 9007199254740993, "quantity": 2147483647, "status": "pending"},
        {"status": "sold", "quantity": 1, "petId": 3}
      ]`,
    );

    const result = await importFile(path);

    expectImportedLocally(result, 4);
    expect(await inventoryTable()).toStrictEqual([
      importedRecord('-9223372036854775808', 0, 'sold'),
      importedRecord('3', 1, 'sold'),
      importedRecord('9007199254740993', 2147483647, 'pending'),
      importedRecord('9223372036854775807', 5, 'available'),
    ]);
  });

  test('CSV and JSON files starting with a UTF-8 byte order mark, with CRLF line ends', async () => {
    const csv = await file('bom.csv', '\uFEFFpetId,quantity,status\r\n1,2,sold\r\n');
    const json = await file('bom.json', '\uFEFF[{"petId": 2, "quantity": 3, "status": "pending"}]\r\n');

    // Their petIds differ: the two imports run side by side.
    const [csvResult, jsonResult] = await Promise.all([importFile(csv), importFile(json)]);
    expect(csvResult.code).toBe(0);
    expect(jsonResult.code).toBe(0);
    expect(await inventoryTable()).toStrictEqual([
      importedRecord('1', 2, 'sold'),
      importedRecord('2', 3, 'pending'),
    ]);
  });

  test('an imported entry replaces the stored entry with the same petId and leaves others alone', async () => {
    await putItems(api.dynamoDb, testTableNames.inventory, [
      inventoryRecord('5', 1, 'pending'),
      inventoryRecord('6', 2, 'pending'),
    ]);
    const path = await file('replace.json', '[{"petId": 5, "quantity": 9, "status": "sold"}]');

    const result = await importFile(path);

    expect(result.code).toBe(0);
    expect(await inventoryTable()).toStrictEqual([
      importedRecord('5', 9, 'sold'),
      inventoryRecord('6', 2, 'pending'),
    ]);
  });

  test('progress of a large file is reported on stderr per chunk of 1000', async () => {
    const rows = Array.from({ length: 2001 }, (_, i) => `${i + 1},${i % 10},available`);
    const path = await file('large.csv', `petId,quantity,status\n${rows.join('\n')}\n`);

    const result = await importFile(path);

    expect(result.code).toBe(0);
    expect(result.stderr).toBe('\rimported 1000/2001\rimported 2000/2001\rimported 2001/2001\n');
    expect(result.stdout).toBe(`Imported 2001 entries into local store ${api.dataDir}.\n`);
    expect((await inventoryTable()).length).toBe(2001);
  });
});

describe('import of pet details (docs/contract.md "Pets")', () => {
  /** The stored pet details of `petId`'s item as DynamoDB holds them, beside its inventory record. */
  const petRecord = (
    petId: string,
    quantity: number,
    status: string,
    details: { name?: string; category?: [string, string]; photoUrls?: string[]; tags?: [string, string][] },
  ) => {
    const label = ([id, name]: [string, string]) => ({ M: { id: { N: id }, name: { S: name } } });
    return {
      ...importedRecord(petId, quantity, status),
      ...(details.name === undefined ? {} : { name: { S: details.name } }),
      ...(details.category === undefined ? {} : { category: label(details.category) }),
      photoUrls: { L: (details.photoUrls ?? []).map((url) => ({ S: url })) },
      tags: { L: (details.tags ?? []).map(label) },
    };
  };

  test('JSON rows with name, category, photoUrls and tags (int64 ids exact) store them; a row without stores none', async () => {
    const path = await file(
      'pets.json',
      `[
        {"petId": 1, "quantity": 2, "status": "available", "name": "Rex",
         "category": {"id": 9223372036854775807, "name": "Dogs"}, "photoUrls": ["https://example.com/rex.jpg"],
         "tags": [{"id": -9223372036854775808, "name": "friendly"}, {"id": 9007199254740993, "name": "small"}]},
        {"petId": 2, "quantity": 0, "status": "sold", "name": "Ünïcödé 🐕"},
        {"petId": 3, "quantity": 1, "status": "pending"}
      ]`,
    );

    const result = await importFile(path);

    expectImportedLocally(result, 3);
    expect(await inventoryTable()).toStrictEqual([
      petRecord('1', 2, 'available', {
        name: 'Rex',
        category: ['9223372036854775807', 'Dogs'],
        photoUrls: ['https://example.com/rex.jpg'],
        tags: [
          ['-9223372036854775808', 'friendly'],
          ['9007199254740993', 'small'],
        ],
      }),
      petRecord('2', 0, 'sold', { name: 'Ünïcödé 🐕' }),
      importedRecord('3', 1, 'pending'),
    ]);
  });

  test('CSV columns name, category, photoUrls, tags (JSON cells; an empty cell is no value)', async () => {
    const path = await file(
      'pets.csv',
      [
        'petId,quantity,status,name,category,photoUrls,tags',
        '1,2,available,"Rex, the dog","{""id"": 9223372036854775807, ""name"": ""Dogs""}","[""a.jpg"",""b.jpg""]","[{""id"": 1, ""name"": ""t""}]"',
        '2,0,sold,Bella,,,',
        '3,1,pending,,,,',
        '',
      ].join('\n'),
    );

    const result = await importFile(path);

    expectImportedLocally(result, 3);
    expect(await inventoryTable()).toStrictEqual([
      petRecord('1', 2, 'available', {
        name: 'Rex, the dog',
        category: ['9223372036854775807', 'Dogs'],
        photoUrls: ['a.jpg', 'b.jpg'],
        tags: [['1', 't']],
      }),
      petRecord('2', 0, 'sold', { name: 'Bella' }),
      importedRecord('3', 1, 'pending'),
    ]);
  });

  test('a generated JSON file of 5,001 named pets (elements across read chunks, names with , ] } " and escapes) is streamed in, with progress per 1000', async () => {
    const count = 5001;
    const nameOf = (i: number) => `Pet ${i}, "the ${i % 7}th" ]}[{ \\ ${'é'.repeat(i % 50)}`;
    const rows = Array.from(
      { length: count },
      (_, i) =>
        `{"petId": ${i + 1}, "quantity": ${i % 10}, "status": "available", "name": ${JSON.stringify(nameOf(i + 1))}, "tags": [{"id": ${i}, "name": "t"}]}`,
    );
    const path = await file('many.json', `[\n${rows.join(',\n')}\n]\n`);

    const result = await importFile(path);

    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      '\rimported 1000/5001\rimported 2000/5001\rimported 3000/5001\rimported 4000/5001\rimported 5000/5001\rimported 5001/5001\n',
    );
    expect(result.stdout).toBe(`Imported ${count} entries into local store ${api.dataDir}.\n`);
    const table = await inventoryTable();
    expect(table).toStrictEqual(
      Array.from({ length: count }, (_, i) =>
        petRecord(String(i + 1), i % 10, 'available', { name: nameOf(i + 1), tags: [[String(i), 't']] }),
      ),
    );
  });
});

/** A file with one invalid row (among valid ones), and the problem the tool must name. */
interface InvalidFile {
  rule: string;
  name: string;
  text: string;
  problem: string;
}

const petIdProblem = 'petId must be an integer from -9223372036854775808 to 9223372036854775807';
const quantityProblem = 'quantity must be an integer from 0 to 2147483647';

const invalidFiles: InvalidFile[] = [
  {
    rule: 'petId with a leading zero (01)',
    name: 'leading-zero.csv',
    text: 'petId,quantity,status\n1,1,available\n01,2,sold\n3,3,pending\n',
    problem: `row 2: ${petIdProblem}`,
  },
  {
    rule: 'petId out of the int64 range',
    name: 'out-of-range.json',
    text: '[{"petId":1,"quantity":1,"status":"sold"},{"petId":9223372036854775808,"quantity":1,"status":"sold"}]',
    problem: `row 2: ${petIdProblem}`,
  },
  {
    rule: 'petId with a fraction (1.5)',
    name: 'fraction.json',
    text: '[{"petId":1.5,"quantity":1,"status":"sold"},{"petId":2,"quantity":1,"status":"sold"}]',
    problem: `row 1: ${petIdProblem}`,
  },
  {
    rule: 'quantity -1',
    name: 'negative.csv',
    text: 'petId,quantity,status\n1,1,available\n2,-1,sold\n',
    problem: `row 2: ${quantityProblem}`,
  },
  {
    rule: 'quantity 2147483648',
    name: 'too-many.csv',
    text: 'petId,quantity,status\n1,2147483648,available\n2,1,sold\n',
    problem: `row 1: ${quantityProblem}`,
  },
  {
    rule: 'quantity "5" (a string) in JSON',
    name: 'string-quantity.json',
    text: '[{"petId":1,"quantity":1,"status":"sold"},{"petId":2,"quantity":"5","status":"sold"}]',
    problem: `row 2: ${quantityProblem}`,
  },
  {
    rule: 'a reorderPoint out of range',
    name: 'reorder-point.csv',
    text: 'petId,quantity,status,reorderPoint\n1,1,available,2\n2,1,sold,2147483648\n',
    problem: 'row 2: reorderPoint must be an integer from 0 to 2147483647, or absent (empty in CSV) for none',
  },
  {
    rule: 'status lost',
    name: 'status.csv',
    text: 'petId,quantity,status\n1,1,available\n2,1,sold\n3,1,lost\n',
    problem: 'row 3: status must be one of available, pending, sold',
  },
  {
    rule: 'an extra member in JSON',
    name: 'extra-member.json',
    text: '[{"petId":1,"quantity":1,"status":"sold"},{"petId":2,"quantity":1,"status":"sold","price":10}]',
    problem: 'row 2: unexpected member(s) price',
  },
  {
    rule: 'duplicate petId',
    name: 'duplicate.csv',
    text: 'petId,quantity,status\n7,1,available\n8,1,sold\n7,2,pending\n',
    problem: 'row 3: petId 7 appears twice',
  },
  {
    rule: 'a row that is not an object in JSON',
    name: 'not-object.json',
    text: '[{"petId":1,"quantity":1,"status":"sold"},5]',
    problem: 'row 2: must be an object with the members petId, quantity and status',
  },
  {
    rule: 'a name of 201 characters in CSV',
    name: 'long-name.csv',
    text: `petId,quantity,status,name\n1,1,available,Rex\n2,1,sold,${'x'.repeat(201)}\n`,
    problem: 'row 2: name must be a string of 1 to 200 characters',
  },
  {
    rule: 'a CSV category cell that is not JSON',
    name: 'category-cell.csv',
    text: 'petId,quantity,status,category\n1,1,available,Dogs\n',
    problem: 'row 1: category must be JSON such as {"id": 1, "name": "Dogs"}',
  },
  {
    rule: 'a tag id that is not an int64 in JSON',
    name: 'tag-id.json',
    text: '[{"petId":1,"quantity":1,"status":"sold","tags":[{"id":1.5,"name":"t"}]}]',
    problem: 'row 1: tags[0].id must be an integer from -9223372036854775808 to 9223372036854775807',
  },
  {
    rule: 'photoUrls that is not an array in JSON',
    name: 'photo-urls.json',
    text: '[{"petId":1,"quantity":1,"status":"sold"},{"petId":2,"quantity":1,"status":"sold","photoUrls":"a.jpg"}]',
    problem: 'row 2: photoUrls must be an array of at most 20 items',
  },
  {
    rule: 'a row of a JSON file that is not JSON',
    name: 'bad-row.json',
    text: '[{"petId":1,"quantity":1,"status":"sold"},{"petId":2,,}]',
    problem: 'row 2: not valid JSON',
  },
];

describe('import of a file with an invalid row exits 1, names the row and writes nothing', () => {
  test.each(invalidFiles)('$rule', async ({ name, text, problem }) => {
    const result = await importFile(await file(name, text));

    expectRefused(result, `import: 1 invalid row(s):\n${problem}\n`);
    expect(await inventoryTable()).toStrictEqual([]);
  });

  test('an extra CSV column names every row', async () => {
    const path = await file('extra-column.csv', 'petId,quantity,status,note\n1,1,sold,a\n2,1,sold,b\n');

    const result = await importFile(path);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'import: 2 invalid row(s):\nrow 1: unexpected member(s) note\nrow 2: unexpected member(s) note\n',
    );
    expect(await inventoryTable()).toStrictEqual([]);
  });

  test('a CSV row with more values than the header names its line', async () => {
    const path = await file('ragged.csv', 'petId,quantity,status\n1,1,sold\n2,1,sold,extra\n');

    const result = await importFile(path);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^import: .*line 3/);
    expect(await inventoryTable()).toStrictEqual([]);
  });

  test('a JSON file that is not an array is refused as a whole', async () => {
    const path = await file('object.json', '{"petId": 1, "quantity": 1, "status": "sold"}');

    const result = await importFile(path);

    expectRefused(result, 'import: the file must hold a JSON array of entries\n');
    expect(await inventoryTable()).toStrictEqual([]);
  });

  test('a file that is neither .json nor .csv is refused', async () => {
    const path = await file('entries.txt', 'petId,quantity,status\n1,1,sold\n');

    const result = await importFile(path);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`import: ${path}: the file name must end in .json or .csv\n`);
    expect(await inventoryTable()).toStrictEqual([]);
  });
});

describe('import with AWS_ENDPOINT_URL_DYNAMODB', () => {
  test('writes to that DynamoDB and leaves DATA_DIR alone', async () => {
    const store = await runningStore(api.dataDir);
    const { endpoint } = store;
    const unusedDir = join(filesDir, 'unused-data-dir');
    const path = await file('external.json', '[{"petId": 12, "quantity": 4, "status": "pending"}]');

    const result = await runNode(scripts.import, [path], {
      env: childEnv({ ...storeVariables(store), DATA_DIR: unusedDir }),
    });

    expect(result).toStrictEqual({
      code: 0,
      signal: null,
      stdout: `Imported 1 entries into DynamoDB at ${endpoint}.\n`,
      stderr: '\rimported 1/1\n',
    });
    expect(await inventoryTable()).toStrictEqual([importedRecord('12', 4, 'pending')]);
    expect(existsSync(unusedDir)).toBe(false);
  });
});

describe('import before any npm start', () => {
  test('fails with the clear message when the data folder has no tables', async () => {
    const emptyDir = await temporaryDir('import-tool-empty-');
    const path = await file('before-start.csv', 'petId,quantity,status\n1,1,sold\n');

    const result = await runNode(scripts.import, [path], { env: childEnv({ DATA_DIR: emptyDir }) });

    expectRefused(result, 'import: the local store has no tables yet: run `npm start` once first\n');
  });
});
