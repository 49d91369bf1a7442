/**
 * The typed client's `pages` through listInventoryHistory (client/README.md "Pages"), on the local API with the
 * event path (the records come from the table's change stream): five changes of one pet, read two at a time
 * with `for await`, newest first, each record once.
 */
import { createPetStoreClient } from '@pet-store/client';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startTestApi, type TestApi } from '#test/support/test-api.ts';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ seed: false, events: true });
});
afterAll(async () => {
  await api?.close();
});

it('pages the history of a pet two records at a time, newest first, following Link rel="next"', async () => {
  const client = createPetStoreClient({ baseUrl: api.baseUrl, apiKey: api.apiKey });
  const petId = 9007199254740993n;
  await client.POST('/pets', { body: { id: petId, name: 'Rex' } });
  for (const quantity of [1, 2, 3, 4])
    await client.PATCH('/inventory/{petId}', { params: { path: { petId } }, body: { quantity } });
  const path = { petId };
  // The records are written from the change stream after the answers: wait for all five.
  await vi.waitFor(
    async () => {
      const all = await client.GET('/inventory/{petId}/history', {
        params: { path, query: { limit: 1000 } },
      });
      expect(all).toHaveLength(5);
    },
    { timeout: 20_000, interval: 200 },
  );

  const pages: number[][] = [];
  for await (const { data } of client.pages('/inventory/{petId}/history', {
    params: { path, query: { limit: 2 } },
  }))
    pages.push(data.map((change) => change.sequence));

  expect(pages).toEqual([[5, 4], [3, 2], [1]]);
});
