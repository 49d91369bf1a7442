/**
 * A PATCH racing a batch that changes the same pet (docs/contract.md "Inventory semantics", the batch's
 * decisions): each round sends a batch of 20 changes and, at the same moment, a PATCH of one of its pets, each
 * on its own connection. Afterwards, checked on the table: either both were applied, in the order the PATCH's
 * answer shows (the status it saw), or the batch (with `ifMatch` on that pet) was refused with 412 and nothing of
 * it was applied. Never a 5xx, never half a batch.
 */
import { describe, expect, test } from 'vitest';
import { rawClient, sendJson } from '#test/support/raw-http.ts';
import { storedEntry, testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite();

const petIds = Array.from({ length: 20 }, (_, index) => String(2001 + index));
/** The pet both requests change. */
const raced = '2011';
const rounds = 30;

describe('a PATCH racing a batch of the same pet', () => {
  test.each([
    ['with ifMatch on the raced pet', true],
    ['without ifMatch', false],
  ])('%s: both applied in some order, or the batch refused whole', async (_, withIfMatch) => {
    const client = rawClient(api.baseUrl, { maxSockets: 4, retryConnectionErrors: true });
    try {
      for (let round = 0; round < rounds; round++) {
        await api.inventory.putMany(petIds.map((petId) => ({ petId, quantity: 1, status: 'available' })));
        const batch = {
          changes: petIds.map((petId) => ({
            petId: Number(petId),
            quantity: 500,
            status: 'pending',
            ...(withIfMatch && petId === raced ? { ifMatch: '"1-available"' } : {}),
          })),
        };
        const send = (method: string, path: string, body: unknown) =>
          sendJson(client, api.authorization, method, path, JSON.stringify(body));
        const [batchAnswer, patchAnswer] = await Promise.all([
          send('POST', '/inventory/batch', batch),
          send('PATCH', `/inventory/${raced}`, { quantity: 7 }),
        ]);
        expect(patchAnswer.status, patchAnswer.text).toBe(200);
        const patchedAfter = JSON.parse(patchAnswer.text).status === 'pending';
        const stored = await api.tableItems();
        const change = { reason: 'adjustment', keyId: api.keyId };
        const batchEntries = petIds.map((petId) => storedEntry(petId, 500, 'pending', change));
        if (patchedAfter) {
          // The batch, then the PATCH: every change of the batch, and the PATCH's quantity on its status.
          expect(batchAnswer.status, batchAnswer.text).toBe(200);
          expect(stored).toEqual(
            batchEntries.map((entry) =>
              entry.petId === raced ? storedEntry(raced, 7, 'pending', change) : entry,
            ),
          );
        } else if (withIfMatch) {
          // The PATCH, then the batch: its ifMatch no longer holds, so nothing of it is applied.
          expect(JSON.parse(batchAnswer.text)).toEqual({
            code: 'precondition_failed',
            message: `changes[10]: ifMatch does not match the current entry of petId ${raced}`,
            status: 412,
          });
          expect(stored).toEqual(
            petIds.map((petId) =>
              petId === raced
                ? storedEntry(raced, 7, 'available', change)
                : storedEntry(petId, 1, 'available', { reason: 'import' }),
            ),
          );
        } else {
          // The PATCH, then the batch: the batch's values everywhere.
          expect(batchAnswer.status, batchAnswer.text).toBe(200);
          expect(stored).toEqual(batchEntries);
        }
        if (batchAnswer.status === 200) {
          const answered = JSON.parse(batchAnswer.text).items as { petId: number; quantity: number }[];
          expect(answered.map((item) => item.quantity)).toEqual(petIds.map(() => 500));
        }
      }
    } finally {
      client.close();
    }
  });
});
