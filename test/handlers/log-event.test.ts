/**
 * `injectLambdaContext` never logs the event, whatever `POWERTOOLS_LOGGER_LOG_EVENT` says: the event carries the
 * bearer key (docs/contract.md "Authentication and authorization"). The variable is set to `true` (and the
 * level to DEBUG) before the handler modules load, since the logger reads them once, at import; the three
 * handlers are invoked with events carrying a key, and every line written to stdout or stderr is checked.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { installStreamingRuntime } from '#infra/local/response-streaming.ts';
import {
  type AuthorizerHandler,
  invokeStreaming,
  lambdaTestContext,
  type ProxyHandler,
  restProxyEvent,
  type StreamingHandler,
  tokenAuthorizerEvent,
} from '#test/support/lambda-events.ts';
import {
  inventoryRecord,
  putItems,
  setFunctionEnvironment,
  startTestDynamoDb,
  type TestDynamoDb,
  testTableNames,
} from '#test/support/test-dynamodb.ts';

process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';

let db: TestDynamoDb;
let listInventory: StreamingHandler;
let updateInventory: ProxyHandler;
let authorizer: AuthorizerHandler;

beforeAll(async () => {
  db = await startTestDynamoDb();
  setFunctionEnvironment(db.endpoint);
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  await putItems(db.client, testTableNames.inventory, [inventoryRecord('5', 1, 'available')]);
  installStreamingRuntime();
  // In streaming mode the runtime calls (event, stream, context); middy types the plain Lambda signature.
  listInventory = (await import('#functions/list-inventory/handler.ts'))
    .handler as unknown as StreamingHandler;
  updateInventory = (await import('#functions/update-inventory/handler.ts')).handler;
  authorizer = (await import('#functions/authorizer/handler.ts')).handler;
});
afterAll(() => db?.close());

/** The lines written to stdout and stderr while `run` runs. */
async function linesWritten(run: () => Promise<unknown>): Promise<string[]> {
  const lines: string[] = [];
  const originals = [process.stdout.write, process.stderr.write];
  for (const stream of [process.stdout, process.stderr]) {
    stream.write = ((chunk: string | Uint8Array) => {
      lines.push(...String(typeof chunk === 'string' ? chunk : Buffer.from(chunk)).split('\n'));
      return true;
    }) as typeof stream.write;
  }
  try {
    await run();
  } finally {
    [process.stdout.write, process.stderr.write] = originals as [
      typeof process.stdout.write,
      typeof process.stderr.write,
    ];
  }
  return lines.filter(Boolean);
}

test('with POWERTOOLS_LOGGER_LOG_EVENT=true, no function logs its event or the key it carries; metrics are published once per success', async () => {
  const key = `psk_${randomBytes(32).toString('base64url')}`;
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };

  const lines = await linesWritten(async () => {
    await invokeStreaming(
      listInventory,
      restProxyEvent({ method: 'GET', resource: '/inventory', path: '/inventory', headers }),
      lambdaTestContext('listInventory'),
    );
    await updateInventory(
      restProxyEvent({
        method: 'PATCH',
        resource: '/inventory/{petId}',
        path: '/inventory/5',
        pathParameters: { petId: '5' },
        headers,
        body: '{"quantity":2}',
      }),
      lambdaTestContext('updateInventory'),
    );
    await authorizer(
      tokenAuthorizerEvent(
        `Bearer ${key}`,
        'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/v1/GET/inventory',
      ),
      lambdaTestContext('authorizer'),
    );
  });

  // The logger does write (DEBUG): one line per invocation at least, so the check below is not vacuous.
  expect(lines.filter((line) => line.includes('"request completed"'))).toHaveLength(1);
  expect(lines.filter((line) => line.includes('"write completed"'))).toHaveLength(1);
  // The business metrics (lib/metrics.ts): one EMF line per successful list and update, with its value.
  const metric = (name: string) =>
    lines
      .filter((line) => line.includes('"CloudWatchMetrics"'))
      .flatMap((line) => JSON.parse(line)[name] ?? []);
  expect([metric('InventoryListSize'), metric('InventoryUpdated')]).toEqual([[1], [1]]);
  expect(lines.some((line) => line.includes('"request refused"'))).toBe(true);
  for (const line of lines) {
    expect(line).not.toContain(key);
    expect(line).not.toContain('Lambda invocation event');
    expect(line).not.toMatch(/bearer/i);
  }
});
