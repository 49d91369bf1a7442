/** Reading orders and stock back over HTTP and from the tables, for the order suites. */
import { expect } from 'vitest';
import { declaredRequest } from './http-assertions.ts';
import type { TestApi } from './test-api.ts';

/** Every order of listOrders, following `Link` rel="next" from the first page of `limit`. */
export async function listAllOrders(
  api: Pick<TestApi, 'request' | 'authorization'>,
  limit: number,
): Promise<{ id: string; petId: string; quantity: number }[]> {
  const orders: { id: string; petId: string; quantity: number }[] = [];
  let path: string | undefined = `/store/orders?limit=${limit}`;
  while (path) {
    const response = await declaredRequest(api, 'GET', path);
    expect(response.status).toBe(200);
    const ids = [...response.text.matchAll(/"id":(\d+),"petId":(-?\d+),"quantity":(\d+)/g)];
    orders.push(
      ...ids.map(([, id, petId, quantity]) => ({
        id: id as string,
        petId: petId as string,
        quantity: Number(quantity),
      })),
    );
    const link = response.headers.get('link');
    path = link ? /^<\/v1([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
    if (link) expect(path).toBeDefined();
  }
  return orders;
}

/** The stored quantity of `petId` among `items` ({@link TestApi.tableItems}), as decimal text. */
export function stockOf(items: Record<string, string>[], petId: string): string | undefined {
  return items.find((item) => item.petId === petId)?.quantity;
}
