/**
 * `injectLambdaContext` never logs the event, whatever `POWERTOOLS_LOGGER_LOG_EVENT` says: the event carries the
 * bearer key (docs/contract.md "Authentication and authorization"). The variable is set to `true` (and the
 * level to DEBUG) before the handler modules load, since the logger reads them once, at import; the three
 * handlers are invoked with events carrying a key, and every line written to stdout or stderr is checked.
 */
import { randomBytes } from 'node:crypto';
import { lambdaContext } from 'local-aws';
import { expect, test } from 'vitest';
import {
  handlerSuite,
  listInventoryEvent,
  loadInventoryHandlers,
  updateInventoryEvent,
} from '#test/support/handler-suite.ts';
import { invokeStreaming, tokenAuthorizerEvent } from '#test/support/lambda-events.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';

process.env.POWERTOOLS_LOGGER_LOG_EVENT = 'true';
process.env.POWERTOOLS_LOG_LEVEL = 'DEBUG';

// Metrics on (the functions' test environment turns them off), so that the EMF lines are written too.
const suite = handlerSuite(loadInventoryHandlers, [inventoryRecord('5', 1, 'available')], {
  POWERTOOLS_METRICS_DISABLED: 'false',
});

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
      suite.handler.listInventory,
      listInventoryEvent(headers),
      lambdaContext('listInventory'),
    );
    await suite.handler.updateInventory(
      updateInventoryEvent('5', '{"quantity":2}', headers),
      lambdaContext('updateInventory'),
    );
    await suite.handler.authorizer(
      tokenAuthorizerEvent(
        `Bearer ${key}`,
        'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/v1/GET/inventory',
      ),
      lambdaContext('authorizer'),
    );
  });

  // The logger does write (DEBUG): one line per invocation at least, so the check below is not vacuous.
  expect(lines.filter((line) => line.includes('"request completed"'))).toHaveLength(1);
  expect(lines.filter((line) => line.includes('"write completed"'))).toHaveLength(1);
  // The list publishes InventoryListSize as one EMF line; InventoryUpdated is counted by the stack's metric filter
  // on the update's audit line (message, status 200, service: test/infra/stack.test.ts), not by an EMF line.
  const records = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  const metric = (name: string) => records.flatMap((record) => record[name] ?? []);
  expect([metric('InventoryListSize'), metric('InventoryUpdated')]).toEqual([[1], []]);
  const audit = records.filter((record) => record.message === 'write completed');
  expect(audit.map(({ status, service }) => ({ status, service }))).toEqual([
    { status: 200, service: 'pet-store-inventory' },
  ]);
  expect(lines.some((line) => line.includes('"request refused"'))).toBe(true);
  for (const line of lines) {
    expect(line).not.toContain(key);
    expect(line).not.toContain('Lambda invocation event');
    expect(line).not.toMatch(/bearer/i);
  }
});
