/** Requests to a local server process and reads of its store, for the fault suites (docs/testing.md "Test support"). */
import { dynamoDbClient } from 'local-aws/testing';
import type { TableId } from '#lib/tables.ts';
import { type RawItem, scanTable } from './raw-tables.ts';
import type { ServerProcess } from './server-process.ts';
import { runningStore, testTableNames } from './test-dynamodb.ts';

/** JSON text parsed with every integer beyond 2^53 kept as written (a string): petIds and order ids. */
export function exactJson(text: string) {
  return JSON.parse(text, (_key, value, context?: { source?: string }) =>
    typeof value === 'number' && !Number.isSafeInteger(value) ? context?.source : value,
  );
}

/** A server's answer: status, headers, and the body as JSON (undefined when empty). */
export interface ServerAnswer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the body is the API's JSON, compared whole by the tests
  body: any;
  headers: Headers;
}

/**
 * One API request to `server` with the API key `apiKey` (a Bearer token), a JSON `body` and extra `headers`.
 * @throws when the connection fails (`fetch failed`)
 */
export async function callServer(
  server: ServerProcess,
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ServerAnswer> {
  const response = await fetch(server.baseUrl + path, {
    method,
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? exactJson(text) : undefined, headers: response.headers };
}

/** The items of table `id` of the store of `dataDir` (served by a running process), sorted by their text. */
export async function storeTable(dataDir: string, id: TableId): Promise<RawItem[]> {
  const store = await runningStore(dataDir);
  const client = dynamoDbClient(store.endpoint, store.credentials);
  try {
    const items = await scanTable(client, testTableNames[id]);
    return items.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  } finally {
    client.destroy();
  }
}

/** petId -> `quantity status` of the inventory table's items. */
export function stockOf(items: RawItem[]): Record<string, string> {
  return Object.fromEntries(
    items.map((item) => [item.petId?.N as string, `${item.quantity?.N} ${item.status?.S}`]),
  );
}
