/**
 * Hostile batchUpdateInventory bodies (docs/contract.md "Inventory semantics", the batch and its decisions),
 * decided by the contract oracle (test/support/contract-oracle.ts `contractBatch`, independent of lib/) and the
 * inventory model (`expectBatchAnswer`): generated batches of 1 to 12 elements over pets with and without
 * entries (petIds repeated, values of every JSON type, unknown members, `ifMatch` current, stale, `*`, weak,
 * malformed or not a string); 0 and 101 elements; bodies that are not an object of changes; and, in a batch of
 * 100, a bad element at each position 0..99, each named by its index. Every refusal changes nothing (the table
 * is compared with the model after every request); never a 5xx.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  contractBatch,
  contractListedNames,
  expectContractError,
  observe,
} from '#test/support/contract-oracle.ts';
import { modelledSuite } from '#test/support/inventory-model.ts';
import { sendJson } from '#test/support/raw-http.ts';

/** Pets 1-100 with entries; 101-103 never have one. */
const pets = Array.from({ length: 100 }, (_, index) => ({
  petId: String(index + 1),
  quantity: index % 5,
  status: 'available' as const,
}));
const hostile = modelledSuite(pets);

/** POST /inventory/batch with `body` (text) and the suite's key; the response observed for the oracle. */
async function sendBatch(body: string) {
  return observe(await sendJson(hostile.client, hostile.api.authorization, 'POST', '/inventory/batch', body));
}

/** The strong tag of the model's entry `petId` (a tag no entry has when there is none). */
function currentTag(petId: string): string {
  const entry = hostile.model.get(petId);
  return entry ? `"${entry.quantity}-${entry.status}"` : '"0-sold"';
}

/** `value` most of the time, else one of `others`, else (when `optional`) absent. */
function mostly(value: fc.Arbitrary<string>, others: string[], optional = true) {
  return fc.oneof(
    { weight: 12, arbitrary: value },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
    { weight: optional ? 4 : 0, arbitrary: fc.constant(undefined) },
  );
}

/** One generated element, as JSON text with its `ifMatch` resolved against the model when sent. */
const element = fc.record({
  petId: mostly(fc.integer({ min: 1, max: 103 }).map(String), [
    '"5"',
    '1.5',
    'null',
    '-0',
    '9223372036854775808',
    '1e0',
    '2.0',
  ]),
  quantity: mostly(fc.nat({ max: 60 }).map(String), [
    '-1',
    '2147483648',
    '"3"',
    '4.9999999999999999',
    'true',
    '[]',
    '3.0',
  ]),
  status: mostly(fc.constantFrom('"available"', '"pending"', '"sold"'), ['"lost"', '1']),
  reason: mostly(fc.constantFrom('"arrival"', '"return"', '"adjustment"'), ['"theft"']),
  ifMatch: mostly(fc.constantFrom('current', 'current', 'stale', '"*"'), [
    '"W/\\"1-available\\""',
    '"nonsense"',
    '7',
    '""',
  ]),
  extra: fc.oneof(
    { weight: 12, arbitrary: fc.constant(undefined) },
    fc.constantFrom('"note": 1', '"petID": 2'),
  ),
});

/** The JSON text of a generated element. */
function elementText(generated: { [name: string]: string | undefined }): string {
  const present = Object.entries(generated).filter(([, value]) => value !== undefined);
  const members = present.map(([name, value]) => {
    if (name === 'extra') return value as string;
    if (name === 'ifMatch' && value === 'current')
      return `"ifMatch":${JSON.stringify(currentTag(generated.petId as string))}`;
    if (name === 'ifMatch' && value === 'stale') return '"ifMatch":"\\"61-pending\\""';
    return `${JSON.stringify(name)}:${value}`;
  });
  return `{${members.join(',')}}`;
}

/** A valid element for `petId` (an entry's current tag when `ifMatch` is `current`), as the generator makes them. */
const valid = (petId: string, ifMatch?: string) => ({
  petId,
  quantity: '5',
  status: '"available"',
  reason: '"adjustment"',
  ifMatch,
  extra: undefined,
});

/** Batches answered 200, 404 (a pet without an entry), 412 (a stale tag) and 400 (a negative quantity). */
const answerExamples: [ReturnType<typeof valid>[]][] = [
  [[valid('1', 'current')]],
  [[valid('2'), valid('102')]],
  [[valid('3', 'stale')]],
  [[{ ...valid('4'), quantity: '-1' }]],
];

describe('hostile batches', () => {
  const statuses = new Set<number>();
  test('every generated batch gets the contract answer and changes only what an accepted batch changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(element, { minLength: 1, maxLength: 6 }), async (elements) => {
        const body = `{"changes":[${elements.map(elementText).join(',')}]}`;
        const verdict = contractBatch(new TextEncoder().encode(body));
        const response = await sendBatch(body);
        statuses.add(response.status);
        const context = `${body} -> ${response.status} ${response.text}`;
        if ('changes' in verdict) {
          hostile.model.expectBatchAnswer(response, verdict.changes);
        } else {
          const { message } = expectContractError(response, 400);
          expect(message.startsWith(`changes[${verdict.index}]: `), context).toBe(true);
        }
        await hostile.model.expectTable(hostile.api, context);
      }),
      // One batch per answer beside the generated ones: a 404 needs every element valid and one pet without an
      // entry, which 200 generated batches do not always hold.
      { numRuns: 200, examples: answerExamples },
    );
    // Every answer of the operation is reached, each as the oracle decides it.
    expect([...statuses].sort()).toEqual([200, 400, 404, 412]);
  });

  test.each([
    ['no element', '{"changes":[]}', 'changes must be an array of 1 to 100 changes; it holds 0'],
    [
      '101 elements',
      `{"changes":[${Array.from({ length: 101 }, (_, i) => `{"petId":${i + 1},"quantity":1}`).join(',')}]}`,
      'changes must be an array of 1 to 100 changes; it holds 101',
    ],
    [
      'changes that are not an array',
      '{"changes":{"petId":1,"quantity":1}}',
      'changes must be an array of 1 to 100 changes',
    ],
    ['no changes', '{}', 'changes must be an array of 1 to 100 changes'],
    [
      'an array body',
      '[{"petId":1,"quantity":1}]',
      'request body must be a JSON object such as {"changes": [{"petId": 7, "quantity": 5}]}',
    ],
    [
      'a number body',
      '5',
      'request body must be a JSON object such as {"changes": [{"petId": 7, "quantity": 5}]}',
    ],
    [
      'a null body',
      'null',
      'request body must be a JSON object such as {"changes": [{"petId": 7, "quantity": 5}]}',
    ],
    [
      'another member beside changes',
      '{"changes":[{"petId":1,"quantity":1}],"dryRun":true}',
      'request body may only contain changes; not allowed: "dryRun"',
    ],
  ])('%s: 400 with the exact message, nothing changes', async (_, body, message) => {
    expect(contractBatch(new TextEncoder().encode(body))).toStrictEqual({});
    expectContractError(await sendBatch(body), 400, message);
    await hostile.model.expectTable(hostile.api, body);
  });

  /** The bad elements placed at each position: each invalid on its own, or a repeat of the element before. */
  const badElements: ((position: number) => string)[] = [
    (p) => `{"petId":${p + 1},"quantity":-1}`,
    (p) => `{"petId":${p + 1},"quantity":1,"colour":"red"}`,
    (p) => (p > 0 ? `{"petId":${p},"status":"sold"}` : '[]'),
    () => '"a change"',
    (p) => `{"petId":${p + 1},"quantity":1,"ifMatch":"12-available"}`,
    () => '{"quantity":1}',
    (p) => `{"petId":${p + 1}}`,
    (p) => `{"petId":${p + 1},"status":"available","reason":"gift"}`,
  ];

  test('in a batch of 100, a bad element at each position 0..99 is named by its index and nothing changes', async () => {
    for (let position = 0; position < 100; position++) {
      const elements = pets.map(({ petId }) => `{"petId":${petId},"quantity":${Number(petId) + 7}}`);
      elements[position] = (badElements[position % badElements.length] as (p: number) => string)(position);
      const body = `{"changes":[${elements.join(',')}]}`;
      expect(contractBatch(new TextEncoder().encode(body)), body).toStrictEqual({ index: position });
      const { message } = expectContractError(await sendBatch(body), 400);
      expect(message.startsWith(`changes[${position}]: `), message).toBe(true);
    }
    await hostile.model.expectTable(hostile.api);
  });
});

describe('bodies of about 1 MB are answered, not timed out (docs/contract.md "Bounded cost, clean shutdown")', () => {
  const names = Array.from({ length: 50_000 }, (_, index) => `x${index}`);
  const members = 'petId, quantity, adjustBy, status, reorderPoint, reason, ifMatch';
  test.each([
    [
      'a quantity of 500,000 digits',
      `{"petId":1,"quantity":1${'0'.repeat(500_000)}1}`,
      400,
      'changes[0]: quantity must be an integer from 0 to 2147483647',
    ],
    [
      '50,000 unknown members',
      `{"petId":1,"quantity":1,${names.map((name) => `"${name}":0`).join(',')}}`,
      400,
      `changes[0]: a change may only contain ${members}; not allowed: ${contractListedNames(names)}`,
    ],
    [
      'a quantity nested 100,000 arrays deep',
      `{"petId":1,"quantity":${'['.repeat(100_000)}1${']'.repeat(100_000)}}`,
      400,
      'changes[0]: quantity must be an integer from 0 to 2147483647',
    ],
    [
      'an ifMatch tag of 500,000 characters (a tag no entry has)',
      `{"petId":1,"quantity":1,"ifMatch":"\\"${'1'.repeat(500_000)}-available\\""}`,
      412,
      'changes[0]: ifMatch does not match the current entry of petId 1',
    ],
  ])('%s: %i naming element 0, nothing changes', async (_, element, status, message) => {
    const body = `{"changes":[${element}]}`;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 1024);
    expectContractError(await sendBatch(body), status, message);
    await hostile.model.expectTable(hostile.api);
  });
});
