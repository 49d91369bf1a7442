/**
 * Every example of openapi.yaml's requests and responses, found by walking the document (test/contract's
 * openapi-examples suites prove each is one the service produces): docs/testing.md "Over HTTP, rule by rule".
 * @module
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from './child-process.ts';

/** An example's value, integers beyond ±2^53 as exact bigints (the rest as numbers). */
export type ExampleValue = unknown;

type Node = Record<string, unknown>;

/** Integers a number holds exactly become numbers again; others stay bigints (as parseJsonExact reads them). */
function exactNumbers(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  }
  if (Array.isArray(value)) return value.map(exactNumbers);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, exactNumbers(member)]));
  return value;
}

const document = exactNumbers(
  parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8'), { intAsBigInt: true }),
) as {
  paths: Record<string, Record<string, Node>>;
  webhooks?: Record<string, Record<string, Node>>;
  components: { responses: Record<string, Node> };
};

/** The examples of one media-type map (`content`), each as `[name, value]` (`example` as `example`). */
function contentExamples(content: unknown): [string, ExampleValue][] {
  return Object.values((content ?? {}) as Record<string, Node>).flatMap((media) => [
    ...Object.entries((media.examples ?? {}) as Record<string, { value?: unknown }>).map(
      ([name, example]): [string, ExampleValue] => [name, example.value],
    ),
    ...(media.example === undefined ? [] : [['example', media.example] as [string, ExampleValue]]),
  ]);
}

const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/**
 * Every request and response example of openapi.yaml by a name that says where it is: `<operationId> request
 * <example>` (request bodies, the webhooks' too), `<operationId> <status> <example>` (an operation's own
 * responses) and `<component> <example>` (the shared responses of `components.responses`, which operations
 * use by `$ref`).
 */
export const documentExamples: ReadonlyMap<string, ExampleValue> = new Map([
  ...Object.values({ ...document.paths, ...document.webhooks }).flatMap((item) =>
    Object.entries(item)
      .filter(([method]) => methods.has(method))
      .flatMap(([, operation]) => {
        const id = String(operation.operationId);
        const body = (operation.requestBody ?? {}) as Node;
        return [
          ...contentExamples(body.content).map(([name, value]): [string, ExampleValue] => [
            `${id} request ${name}`,
            value,
          ]),
          ...Object.entries((operation.responses ?? {}) as Record<string, Node>)
            .filter(([, response]) => response.$ref === undefined)
            .flatMap(([status, response]) =>
              contentExamples(response.content).map(([name, value]): [string, ExampleValue] => [
                `${id} ${status} ${name}`,
                value,
              ]),
            ),
        ];
      }),
  ),
  ...Object.entries(document.components.responses).flatMap(([component, response]) =>
    contentExamples(response.content).map(([name, value]): [string, ExampleValue] => [
      `${component} ${name}`,
      value,
    ]),
  ),
]);

/**
 * The pattern of `text`'s shape: an id with a lower-case `prefix_` keeps it and has as many id characters after
 * it (base64, base64url, hex); lower-case hex (a key id) is as much hex; any other text keeps its letters and
 * punctuation, any digits in place of its digits.
 */
function shapeOf(text: string): RegExp {
  const literal = (run: string) => run.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const prefix = /^[a-z]+_/.exec(text)?.[0];
  if (prefix !== undefined) return new RegExp(`^${prefix}[A-Za-z0-9+/_-]{${text.length - prefix.length}}$`);
  if (/^[0-9a-f]+$/.test(text) && /[a-f]/.test(text)) return new RegExp(`^[0-9a-f]{${text.length}}$`);
  return new RegExp(
    `^${text
      .split(/[0-9]+/)
      .map(literal)
      .join('[0-9]+')}$`,
  );
}

/**
 * `example` with the members named in `shapeOnly` (at any depth) matched by shape only, for the values that are
 * necessarily different in each run (assigned ids, times, secrets, the caller's key id): a string by
 * {@link shapeOf}, a number as any number, null as null.
 */
export function shaped(example: unknown, shapeOnly: readonly string[]): unknown {
  if (Array.isArray(example)) return example.map((item) => shaped(item, shapeOnly));
  if (example === null || typeof example !== 'object') return example;
  return Object.fromEntries(
    Object.entries(example).map(([name, value]) => {
      if (!shapeOnly.includes(name) || value === null) return [name, shaped(value, shapeOnly)];
      if (typeof value === 'string') return [name, expect.stringMatching(shapeOf(value))];
      if (typeof value === 'number' || typeof value === 'bigint') return [name, expect.any(Number)];
      return [name, shaped(value, shapeOnly)];
    }),
  );
}

/** JSON text of `value`, bigints written digit for digit (as the service writes int64 ids). */
export function exactJson(value: unknown): string {
  return JSON.stringify(value, (_name, member) =>
    typeof member === 'bigint'
      ? (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(String(member))
      : member,
  );
}

/**
 * The examples that only the event path produces (history records, the events list, webhook deliveries):
 * test/contract/openapi-examples-events.test.ts proves each on a service that runs it.
 */
export const eventPathExamples: readonly string[] = [
  'listInventory 200 low',
  'sendTestWebhook 202 sent',
  'listInventoryHistory 200 page',
  'listInventoryHistory 200 created',
  'listEvents 200 page',
  'inventoryChanged request orderPlaced',
  'inventoryLowStock request sold',
  'orderChanged request placed',
  'webhookTest request test',
  'redeliverWebhook request inventory',
  'redeliverWebhook 202 sent',
];
