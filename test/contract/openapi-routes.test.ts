/**
 * openapi.yaml against the code: the operation table (lib/api.ts), the error codes (lib/http/errors.ts) and
 * the gateway responses (infra/gateway-responses.ts). The description must declare exactly the implemented
 * operations, under their names; the one kind of operation it may declare beyond them is a deprecated one
 * that is not implemented (`GET /pets/{petId}`, named by the spec).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { gatewayResponses } from '#infra/gateway-responses.ts';
import { environments } from '#infra/settings.ts';
import { operations } from '#lib/api.ts';
import { errorStatus } from '#lib/http/errors.ts';

type Node = Record<string, unknown>;

const document = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8')) as Node;
const paths = document.paths as Record<string, Record<string, Node>>;
const components = document.components as Record<string, Record<string, Node>>;
const httpMethods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of openapi.yaml as `METHOD /path`, with its object. */
const declared = new Map<string, Node>(
  Object.entries(paths).flatMap(([path, item]) =>
    httpMethods
      .filter((method) => item[method] !== undefined)
      .map((method) => [`${method.toUpperCase()} ${path}`, item[method] as Node] as const),
  ),
);
const implemented = new Map<string, (typeof operations)[number]>(
  operations.map((operation) => [`${operation.method} ${operation.path}`, operation]),
);

/** A response or header object, following a `$ref` to `#/components/responses` or `#/components/headers`. */
function response(node: unknown): Node {
  const ref = (node as Node).$ref;
  if (typeof ref !== 'string') return node as Node;
  const [, kind, name] = /^#\/components\/(responses|headers)\/(.+)$/.exec(ref) ?? [];
  const target = kind && name ? components[kind]?.[name] : undefined;
  if (!target) throw new Error(`unresolved ${ref}`);
  return target;
}

/** The `code` and `status` constants an Error response's schema pins (`allOf: [Error, {properties}]`). */
function pinnedError(node: Node): { code: unknown; status: unknown } {
  const schema = ((node.content as Node)['application/json'] as Node).schema as Node;
  const [base, pins] = schema.allOf as [Node, Node];
  expect(base.$ref).toBe('#/components/schemas/Error');
  const properties = pins.properties as Record<string, Node>;
  return { code: properties.code?.const, status: properties.status?.const };
}

/** Every example value of every response of openapi.yaml (the operations' and the components'). */
function responseExamples(): unknown[] {
  const all = [
    ...[...declared.values()].flatMap((operation) =>
      Object.values(operation.responses as Node).map((node) => response(node)),
    ),
    ...Object.values(components.responses ?? {}),
  ];
  return all.flatMap((node) =>
    Object.values((node.content ?? {}) as Record<string, Node>).flatMap((media) =>
      Object.values((media.examples ?? {}) as Record<string, Node>).map((example) => example.value),
    ),
  );
}

describe('openapi.yaml and the operation table (lib/api.ts)', () => {
  it.each(operations.map((operation) => [`${operation.method} ${operation.path}`, operation.name]))(
    '%s is declared as operationId %s',
    (key, name) => {
      const operation = declared.get(key);
      expect(operation, `${key} is missing from openapi.yaml`).toBeDefined();
      expect(operation?.operationId).toBe(name);
      const deprecated = operations.find((o) => o.name === name)?.deprecated ?? false;
      expect(operation?.deprecated ?? false).toBe(deprecated);
    },
  );

  it('declares no operation that the table does not have', () => {
    const extra = [...declared.keys()].filter((key) => !implemented.has(key));
    expect(extra).toEqual([]);
  });

  it('uses each operationId once', () => {
    const ids = [...declared.values()].map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('marks every operation the spec does not show experimental (docs/contract.md "Addresses"), listInventory stable, getPetById deprecated', () => {
    const stability = Object.fromEntries(
      [...declared.values()].map((operation) => [operation.operationId, operation['x-stability']]),
    );
    expect(stability).toEqual({
      listInventory: undefined,
      getInventoryItem: 'experimental',
      updateInventory: 'experimental',
      addPet: 'experimental',
      getPetById: undefined,
      ...Object.fromEntries(
        [
          'placeOrder',
          'listOrders',
          'getOrderById',
          'updateOrder',
          'listInventoryHistory',
          'batchUpdateInventory',
          'listEvents',
          'createWebhookEndpoint',
          'listWebhookEndpoints',
          'deleteWebhookEndpoint',
          'listWebhookAttempts',
          'sendTestWebhook',
          'redeliverWebhook',
          'rotateWebhookSecret',
        ].map((name) => [name, 'experimental']),
      ),
    });
  });

  it('declares GET /pets/{petId} deprecated with its sunset date (settings) and both deprecation headers, required but on the 5xx API Gateway may write itself', () => {
    const operation = declared.get('GET /pets/{petId}') as Node;
    expect(operation.operationId).toBe('getPetById');
    expect(operation.deprecated).toBe(true);
    expect(operation['x-sunset']).toBe(environments.production.deprecation.sunsetAt);
    expect(environments.staging.deprecation).toEqual(environments.production.deprecation);
    const required: Record<string, boolean> = {};
    for (const status of ['200', '400', '404', '410', '500', '503']) {
      const headers = response((operation.responses as Node)[status]).headers as Record<string, Node>;
      for (const name of ['Deprecation', 'Sunset']) {
        required[`${status} ${name}`] = response(headers[name]).required === true;
      }
    }
    expect(required).toEqual({
      '200 Deprecation': true,
      '200 Sunset': true,
      '400 Deprecation': true,
      '400 Sunset': true,
      '404 Deprecation': true,
      '404 Sunset': true,
      '410 Deprecation': true,
      '410 Sunset': true,
      '500 Deprecation': false,
      '500 Sunset': false,
      '503 Deprecation': false,
      '503 Sunset': false,
    });
  });

  it.each(operations.map((operation) => [operation.name, `${operation.method} ${operation.path}`]))(
    '%s declares its success, 401, 429, 500 and 503, each with application/json content (a 204, none)',
    (_name, key) => {
      const responses = declared.get(key)?.responses as Node;
      // A POST creates (201), except the batch, which changes existing entries (200), and the endpoint actions,
      // which accept a delivery (202) or answer a new secret (200); a DELETE answers 204.
      const accepted = [
        'POST /webhook-endpoints/{endpointId}/test',
        'POST /webhook-endpoints/{endpointId}/redeliveries',
      ];
      const success = accepted.includes(key)
        ? '202'
        : key.startsWith('POST ') &&
            key !== 'POST /inventory/batch' &&
            key !== 'POST /webhook-endpoints/{endpointId}/rotate-secret'
          ? '201'
          : key.startsWith('DELETE ')
            ? '204'
            : '200';
      expect(Object.keys(responses)).toEqual(expect.arrayContaining([success, '401', '429', '500', '503']));
      for (const [status, node] of Object.entries(responses)) {
        expect(Object.keys(response(node).content ?? {})).toEqual(
          status === '204' ? [] : ['application/json'],
        );
      }
    },
  );

  it('declares the bearer scheme for the whole service', () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(components.securitySchemes?.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('openapi.yaml and the error codes (lib/http/errors.ts, infra/gateway-responses.ts)', () => {
  const errorSchema = components.schemas?.Error as Node;
  const codeEnum = (errorSchema.properties as Record<string, Node>).code?.enum as string[];

  it('lists exactly the codes of errorStatus in the Error schema', () => {
    expect([...codeEnum].sort()).toEqual(Object.keys(errorStatus).sort());
    expect(errorSchema.required).toEqual(['code', 'message', 'status']);
    expect(errorSchema.additionalProperties).toBe(false);
  });

  it('pins each error response to one code and the status errorStatus gives it', () => {
    const errorResponses = Object.entries(components.responses ?? {});
    expect(errorResponses.length).toBeGreaterThan(0);
    for (const [name, node] of errorResponses) {
      const { code, status } = pinnedError(node);
      expect(codeEnum, name).toContain(code);
      expect(status, name).toBe(errorStatus[code as keyof typeof errorStatus]);
    }
  });

  it.each(operations.map((operation) => [`${operation.method} ${operation.path}`]))(
    '%s declares every status any operation can answer: 400 (query parameters), 401, 413, 429, 500, 503',
    (key) => {
      const statuses = Object.keys((declared.get(key)?.responses ?? {}) as Node);
      expect(statuses).toEqual(expect.arrayContaining(['400', '401', '413', '429', '500', '503']));
    },
  );

  it('declares each error response under the status its code has', () => {
    for (const [key, operation] of declared) {
      for (const [status, node] of Object.entries(operation.responses as Node)) {
        if (Number(status) < 400) continue;
        expect(pinnedError(response(node)).status, `${key} ${status}`).toBe(Number(status));
      }
    }
  });

  it.each(Object.entries(gatewayResponses))(
    'gateway response %s has a documented code and status',
    (_type, body) => {
      expect(codeEnum).toContain(body.code);
      expect(body.status).toBe(errorStatus[body.code]);
      const documented = Object.values(components.responses ?? {}).map(pinnedError);
      expect(documented).toContainEqual({ code: body.code, status: body.status });
    },
  );

  it.each(Object.entries(gatewayResponses))('gateway response %s is shown as an example', (_type, body) => {
    expect(responseExamples()).toContainEqual(body);
  });
});
