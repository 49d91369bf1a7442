/**
 * Every 400 example of openapi.yaml is an answer the service gives: each example (of a shared response under
 * `components.responses` or of an operation's own 400) is mapped to a request that yields it, and that request,
 * sent over HTTP to the synthesized stack, is answered 400 with exactly the example's body. The one example of
 * a deployed stack's rule that the local API relaxes (webhook URLs must be https; locally http to loopback is
 * allowed) is the answer of the function itself, invoked here with the deployed URL policy the stack sets
 * (`public-https`, infra/inventory-stack.ts). The example of API Gateway's own refusals is the body of the
 * synthesized stack's gateway responses of those types. An example without a request here (or a request for
 * an example the document no longer has) fails the first test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lambdaContext } from '@pet-store/local-aws';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { eventsEnv } from '#lib/events/changes.ts';
import { tables } from '#lib/tables.ts';
import { projectRoot } from '#test/support/child-process.ts';
import { type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import { servedStagingStack } from '#test/support/synthesized-assembly.ts';
import { testApiSuite } from '#test/support/test-api.ts';

const api = testApiSuite({
  inventory: [
    { petId: '7', quantity: 3, status: 'available' },
    { petId: '9', quantity: 3, status: 'available' },
    { petId: '21', quantity: 1, status: 'sold' },
    { petId: '22', quantity: 1, status: 'sold' },
  ],
});

interface Example {
  summary?: string;
  value?: { status?: number };
}
interface Response {
  $ref?: string;
  content?: Record<string, { examples?: Record<string, Example> }>;
}
const document = parse(readFileSync(join(projectRoot, 'openapi.yaml'), 'utf8')) as {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, Response> }>>;
  components: { responses: Record<string, Response> };
};

/** The 400 examples of `response`, each as `<where>/<example name>`. */
function badRequestExamples(where: string, response: Response): [string, Example][] {
  return Object.entries(response.content?.['application/json']?.examples ?? {})
    .filter(([, example]) => example.value?.status === 400)
    .map(([name, example]) => [`${where}/${name}`, example]);
}

/** Every 400 example of the document: shared responses by their component name, the rest by operationId. */
const examples = new Map<string, Example>([
  ...Object.entries(document.components.responses).flatMap(([name, response]) =>
    badRequestExamples(name, response),
  ),
  ...Object.values(document.paths).flatMap((item) =>
    Object.values(item).flatMap((operation) =>
      Object.values(operation.responses ?? {})
        .filter((response) => response.$ref === undefined)
        .flatMap((response) => badRequestExamples(operation.operationId ?? '', response)),
    ),
  ),
]);

/** A request: method, path under the stage, headers beside the key's `Authorization`, body. */
interface ExampleRequest {
  method: 'GET' | 'PATCH' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

const json = { 'Content-Type': 'application/json' };
const patch7 = (body: string, headers: Record<string, string> = json): ExampleRequest => ({
  method: 'PATCH',
  path: '/inventory/7',
  headers,
  body,
});
const get = (path: string): ExampleRequest => ({ method: 'GET', path });
const post = (path: string, body: unknown): ExampleRequest => ({
  method: 'POST',
  path,
  headers: json,
  body: JSON.stringify(body),
});

/** The cursor a sold-only page of one entry links to (for a cursor used with another status). */
async function soldCursor(): Promise<string> {
  const page = await api.request('GET', '/inventory?limit=1&status=sold', {
    headers: { Authorization: api.authorization },
  });
  return /cursor=([^&>]+)/.exec(page.headers.get('link') ?? '')?.[1] as string;
}

/** The request that yields each 400 example (a function when it needs the store first). */
const requests: Record<string, ExampleRequest | (() => Promise<ExampleRequest>)> = {
  'InvalidRequest/badPetId': get('/inventory/01'),
  'InvalidRequest/badPercentEncoding': get('/inventory/%FF'),
  'InvalidRequest/undeclaredQueryParameter': get('/inventory/7?dryRun=true'),
  'InvalidRequest/badQuantity': patch7('{"quantity": -1}'),
  'InvalidRequest/missingQuantity': patch7('{"reason": "arrival"}'),
  'InvalidRequest/unknownMember': {
    method: 'PATCH',
    path: '/store/orders/1',
    headers: json,
    body: '{"quantity": 1}',
  },
  'InvalidRequest/manyUnknownMembers': post('/pets', {
    name: 'Rex',
    a: 1,
    b: 1,
    c: 1,
    d: 1,
    e: 1,
    f: 1,
    g: 1,
  }),
  'InvalidRequest/missingBody': patch7(''),
  'InvalidRequest/notAnObject': patch7('[5]'),
  'InvalidRequest/invalidJson': patch7('{"quantity": 5'),
  'InvalidRequest/forbiddenMember': patch7('{"__proto__": {"quantity": 5}}'),
  'InvalidRequest/badIfMatch': patch7('{"quantity": 5}', { ...json, 'If-Match': 'twelve' }),
  'InvalidRequest/badContentType': patch7('{"quantity": 5}', { 'Content-Type': 'text/plain' }),
  'InvalidListQuery/badLimit': get('/inventory?limit=0'),
  'InvalidListQuery/badStatus': get('/inventory?status=lost'),
  'InvalidListQuery/badCursor': get('/inventory?limit=1&cursor=made.up'),
  'InvalidListQuery/cursorOfAnotherFilter': async () =>
    get(`/inventory?limit=1&status=pending&cursor=${await soldCursor()}`),
  'InvalidListQuery/repeated': get('/inventory?limit=1&limit=2'),
  'InvalidEventsQuery/badLimit': get('/events?limit=1001'),
  'InvalidEventsQuery/badType': get('/events?type=pet.deleted'),
  'InvalidEventsQuery/badAfter': get('/events?after=yesterday'),
  'InvalidEventsQuery/unknownEvent': get('/events?after=inventory.8080.1'),
  'InvalidEventsQuery/undeclaredQueryParameter': get('/events?cursor=abc'),
  'InvalidEventsQuery/repeated': get('/events?type=order.changed&type=order.changed'),
  'InvalidWebhookEndpoint/privateAddress': post('/webhook-endpoints', { url: 'https://10.0.0.8/hooks' }),
  'InvalidWebhookEndpoint/metadata': post('/webhook-endpoints', { url: 'https://169.254.169.254/latest' }),
  'InvalidWebhookEndpoint/unknownEvent': post('/webhook-endpoints', {
    url: 'http://127.0.0.1:4000/hooks',
    events: ['pet.deleted'],
  }),
  'InvalidRedelivery/badEventId': post('/webhook-endpoints/ws_q3JtW0m9cVx1ZsA4/redeliveries', {
    eventId: 'test_3q2-7wAAAAAAAAAA',
  }),
  'InvalidRedelivery/unknownMember': post('/webhook-endpoints/ws_q3JtW0m9cVx1ZsA4/redeliveries', {
    eventId: 'inventory.7.1',
    endpointId: 'ws_q3JtW0m9cVx1ZsA4',
  }),
  'batchUpdateInventory/duplicate': post('/inventory/batch', {
    changes: [
      { petId: 9, quantity: 1 },
      { petId: 9, quantity: 2 },
    ],
  }),
  'batchUpdateInventory/badElement': post('/inventory/batch', {
    changes: [
      { petId: 7, quantity: 1 },
      { petId: 9, quantity: 1 },
      { petId: 21, quantity: -1 },
    ],
  }),
  'batchUpdateInventory/tooMany': post('/inventory/batch', {
    changes: Array.from({ length: 101 }, (_, petId) => ({ petId, quantity: 1 })),
  }),
  'getPetById/badPetId': get('/pets/abc'),
};

/** The requests of the examples of a deployed stack's rule, sent to createWebhookEndpoint's function. */
const deployedRequests: Record<string, ExampleRequest> = {
  'InvalidWebhookEndpoint/notHttps': post('/webhook-endpoints', { url: 'http://example.com/hooks' }),
};

/**
 * createWebhookEndpoint's handler as deployed: the URL policy the stack sets; its tables are never reached by
 * a refused URL. The environment is set for the import alone (the handler reads it once, as in Lambda).
 */
async function deployedCreateWebhookEndpoint(): Promise<ProxyHandler> {
  const variables = {
    [eventsEnv.urlPolicy]: 'public-https',
    [tables.webhookSubscriptions.env]: 'not-reached',
    [tables.webhookEndpointOwners.env]: 'not-reached',
  };
  const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    return (await import('#functions/create-webhook-endpoint/handler.ts')).handler;
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/**
 * The examples API Gateway answers itself, by the gateway response types that answer them: types this stack
 * never meets locally (it has no request validator), so shown by the synthesized stack's definitions.
 */
const gatewayExamples: Record<string, string[]> = {
  'InvalidRequest/gateway': ['BAD_REQUEST_BODY', 'BAD_REQUEST_PARAMETERS', 'DEFAULT_4XX'],
};

/** The status and body the synthesized staging stack's gateway response of `type` answers. */
async function synthesizedGatewayResponse(type: string): Promise<[number, unknown]> {
  const { template } = await servedStagingStack();
  const resource = Object.values(template.Resources).find(
    (candidate) =>
      candidate.Type === 'AWS::ApiGateway::GatewayResponse' && candidate.Properties?.ResponseType === type,
  );
  const properties = resource?.Properties as {
    StatusCode?: string;
    ResponseTemplates?: Record<string, string>;
  };
  return [
    Number(properties?.StatusCode),
    JSON.parse(properties?.ResponseTemplates?.['application/json'] ?? ''),
  ];
}

describe('the 400 examples of openapi.yaml', () => {
  it('each has a request here that yields it, and each request here an example', () => {
    expect(Object.keys({ ...requests, ...deployedRequests, ...gatewayExamples }).sort()).toEqual(
      [...examples.keys()].sort(),
    );
  });

  it.each(Object.keys(gatewayExamples))(
    "%s is the synthesized stack's answer of each gateway response type that shows it",
    async (name) => {
      for (const type of gatewayExamples[name] ?? [])
        expect(await synthesizedGatewayResponse(type), type).toEqual([400, examples.get(name)?.value]);
    },
  );

  it.each(Object.keys(deployedRequests))(
    "%s is the deployed function's answer to its request",
    async (name) => {
      const request = deployedRequests[name] as ExampleRequest;
      const handler = await deployedCreateWebhookEndpoint();
      const response = await handler(
        restProxyEvent({
          method: request.method,
          resource: request.path,
          path: request.path,
          headers: request.headers ?? {},
          body: request.body ?? '',
        }),
        lambdaContext('createWebhookEndpoint'),
      );
      expect([response.statusCode, JSON.parse(response.body)]).toEqual([400, examples.get(name)?.value]);
    },
  );

  it.each(Object.keys(requests))('%s is the answer to its request', async (name) => {
    const entry = requests[name] as ExampleRequest | (() => Promise<ExampleRequest>);
    const request = typeof entry === 'function' ? await entry() : entry;
    const response = await api.request(request.method, request.path, {
      headers: { Authorization: api.authorization, ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    expect([response.status, JSON.parse(response.text)]).toEqual([400, examples.get(name)?.value]);
  });
});
