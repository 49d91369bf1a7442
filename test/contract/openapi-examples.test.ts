/**
 * Every example of openapi.yaml is one the service produces: the document is walked for every request and
 * response example (test/support/openapi-examples.ts), and each has a proof here, found by its name. A response
 * example is the answer to a request sent over HTTP to the synthesized stack after the state it describes was
 * arranged: the same status (an operation's own response) and the same body, the values that are necessarily
 * different in each run (assigned ids, times, secrets, the caller's key id) matched by shape only. A request
 * example, sent to its operation in a state where it applies, is accepted. The examples of the event path
 * (history records, the events list, webhook deliveries) are proven by openapi-examples-events.test.ts, which
 * runs it; this suite checks that the two together prove every example and nothing else.
 *
 * Answers the local API cannot give are shown as the deployed stack gives them: API Gateway's own refusals by
 * the synthesized stack's gateway responses of those types; a webhook URL of a public host (`https`, checked by
 * its DNS answer, which this offline machine stands in for) by the functions invoked here with the URL policy
 * the stack sets (`public-https`); getPetById after its sunset (a fake clock) and with its database unreachable
 * by the function invoked here.
 */
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { DeleteItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { lambdaContext } from '@pet-store/local-aws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { eventsEnv } from '#lib/events/changes.ts';
import { attemptRecorder, type WebhookAttempt } from '#lib/webhooks/attempt-log.ts';
import { localTableNames } from '#local/settings.ts';
import { type ProxyHandler, restProxyEvent } from '#test/support/lambda-events.ts';
import { documentExamples, eventPathExamples, exactJson, shaped } from '#test/support/openapi-examples.ts';
import { parseJsonExact } from '#test/support/openapi-validator.ts';
import { inventoryRecord } from '#test/support/raw-tables.ts';
import { servedStagingStack } from '#test/support/synthesized-assembly.ts';
import { testApiSuite, unthrottled } from '#test/support/test-api.ts';

const api = testApiSuite({
  inventory: [
    { petId: '9', quantity: 3, status: 'available' },
    { petId: '21', quantity: 1, status: 'sold' },
    { petId: '22', quantity: 1, status: 'sold' },
  ],
});

/** An answer: its status and its body read exactly (int64s beyond 2^53 as bigints). */
interface Answer {
  status: number;
  body: unknown;
}

/**
 * How an example is shown to be the service's: `produce` arranges the state and answers what the service
 * answers (for a request example, to that example, given as its argument); `shapeOnly` names the members
 * matched by shape only.
 */
interface Proof {
  produce: (example: unknown) => Promise<Answer>;
  shapeOnly?: readonly string[];
  /** Asserts what the shapes leave open (a time's distance from another). */
  check?: (example: unknown, body: unknown) => void;
}

const names = () => localTableNames();
const int64Max = '9223372036854775807';

/** Sends a request under the stage with a key (the suite's by default); `body` an object is sent as exact JSON. */
async function send(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; key?: string } = {},
): Promise<Answer> {
  const { body, headers = {}, key = api.apiKey } = options;
  const text = body === undefined ? undefined : typeof body === 'string' ? body : exactJson(body);
  const response = await api.request(method, path, {
    headers: {
      ...(key === '' ? {} : { Authorization: `Bearer ${key}` }),
      ...(text === undefined || typeof body === 'string' ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    ...(text === undefined ? {} : { body: text }),
  });
  return { status: response.status, body: response.text === '' ? '' : parseJsonExact(response.text) };
}

const json = { 'Content-Type': 'application/json' };

/** Stores inventory entries as given (`[petId, quantity, status]`), replacing any of the same petId. */
async function entries(...items: [string, number, string][]): Promise<void> {
  await api.putRawItems(items.map(([petId, quantity, status]) => inventoryRecord(petId, quantity, status)));
}

/** Deletes the inventory entry (and pet) `petId`. */
async function deleteEntry(petId: string): Promise<void> {
  await api.dynamoDb.send(
    new DeleteItemCommand({ TableName: names().inventory, Key: { petId: { N: petId } } }),
  );
}

/** Places an order of `quantity` of pet 9 (stock arranged) and answers its id. */
async function placedOrder(quantity = 2): Promise<string> {
  await entries(['9', 1000, 'available']);
  const placed = await send('POST', '/store/orders', { body: { petId: 9, quantity } });
  return String((placed.body as { id: number | bigint }).id);
}

/** A key holding only `scopes`, stored hashed. */
async function keyWith(...scopes: string[]): Promise<string> {
  const key = generateApiKey();
  await api.keys.put({
    keyDigest: apiKeyDigest(key),
    name: `only ${scopes.join(' ')}`,
    createdAt: new Date().toISOString(),
    scopes: scopes as never,
    ...unthrottled,
  });
  return key;
}

/**
 * Sends requests with one fresh Idempotency-Key, eight at once, round after round with a new key, until one is
 * answered while another with its key is still running (409 `conflict`): that answer.
 */
async function stillRunning(method: string, path: string, body: unknown): Promise<Answer> {
  for (let round = 0; round < 50; round += 1) {
    const headers = { 'Idempotency-Key': `still-running-${path}-${round}-${Date.now()}` };
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(method, path, { body, headers })));
    const conflict = answers.find((answer) => answer.status === 409);
    if (conflict) return conflict;
  }
  throw new Error(`no request of ${method} ${path} met another with its key still running`);
}

/** Runs `load` with `variables` set in this process (a handler reads its environment at import), then restores. */
async function withEnvironment<T>(variables: Record<string, string>, load: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    return await load();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** Runs `work` while every DNS lookup answers a public address (a deployed URL's host, offline). */
async function withPublicDns<T>(work: () => Promise<T>): Promise<T> {
  const original = dns.lookup;
  dns.lookup = ((_host: string, options: unknown, callback: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (
      error: Error | null,
      addresses: unknown,
    ) => void;
    done(null, [{ address: '93.184.215.14', family: 4 }]);
  }) as typeof dns.lookup;
  syncBuiltinESMExports();
  try {
    return await work();
  } finally {
    dns.lookup = original;
    syncBuiltinESMExports();
  }
}

/** The key id the in-process functions' callers have (restProxyEvent's authorizer context). */
const inProcessKeyId = '0123456789ab';

/** The bearer key the in-process functions' callers send: stored and active, as the live-caller check reads it. */
let inProcessKey: string;
let createEndpoint: ProxyHandler;
let listEndpoints: ProxyHandler;
let getPetById: ProxyHandler;

beforeAll(async () => {
  inProcessKey = await keyWith('webhooks:manage');
  // The URL policy the stack sets; the tables of the local service (its variables are this process's).
  [createEndpoint, listEndpoints] = await withEnvironment(
    { [eventsEnv.urlPolicy]: 'public-https' },
    async () => [
      (await import('#functions/create-webhook-endpoint/handler.ts')).handler,
      (await import('#functions/list-webhook-endpoints/handler.ts')).handler,
    ],
  );
  // Its database unreachable (a port nothing listens on); its dates the stack's.
  getPetById = await withEnvironment(
    unreachableStore,
    async () => (await import('#functions/get-pet-by-id/handler.ts')).handler,
  );
});
afterAll(() => vi.useRealTimers());

/** Invokes an in-process function with a request as API Gateway gives it. */
async function invoke(
  handler: ProxyHandler,
  request: {
    method: 'GET' | 'POST';
    resource: string;
    path: string;
    body?: unknown;
    pathParameters?: Record<string, string>;
    keyId?: string;
  },
): Promise<Answer> {
  const event = restProxyEvent({
    method: request.method,
    resource: request.resource,
    path: request.path,
    headers: {
      Authorization: `Bearer ${inProcessKey}`,
      ...(request.body === undefined ? {} : json),
    },
    body: request.body === undefined ? null : exactJson(request.body),
    ...(request.pathParameters ? { pathParameters: request.pathParameters } : {}),
  });
  if (request.keyId !== undefined)
    Object.assign(event.requestContext.authorizer ?? {}, { keyId: request.keyId, firstKeyId: request.keyId });
  const response = await handler(event, lambdaContext('inProcess', { deadline: Date.now() + 3_000 }));
  return { status: response.statusCode, body: response.body === '' ? '' : parseJsonExact(response.body) };
}

/**
 * createWebhookEndpoint as deployed, a public host's URL accepted by its DNS answer, for the key `keyId` (the
 * in-process callers' by default).
 */
function createDeployed(body: unknown, keyId = inProcessKeyId): Promise<Answer> {
  return withPublicDns(() =>
    invoke(createEndpoint, {
      method: 'POST',
      resource: '/webhook-endpoints',
      path: '/webhook-endpoints',
      body,
      keyId,
    }),
  );
}

/** Sets the stored endpoint `endpointId` as the breaker leaves it: disabled after failing since `failingSince`. */
async function breakerDisabled(endpointId: string, failingSince: string, disabledAt: string): Promise<void> {
  await api.dynamoDb.send(
    new UpdateItemCommand({
      TableName: names().webhookEndpoints,
      Key: { subscriptionId: { S: endpointId } },
      UpdateExpression:
        'SET #state = :disabled, failingSince = :since, disabledAt = :at, disabledReason = :failing',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':disabled': { S: 'disabled' },
        ':since': { S: failingSince },
        ':at': { S: disabledAt },
        ':failing': { S: 'failing' },
      },
    }),
  );
}

/** An endpoint of the suite's key at a loopback URL (`http://127.0.0.1:4000/<path>`): its id. */
async function ownEndpoint(path: string): Promise<string> {
  const created = await send('POST', '/webhook-endpoints', {
    body: { url: `http://127.0.0.1:4000/${path}` },
  });
  return (created.body as { id: string }).id;
}

/** An attempt's next time after its end, in ms: the delay its delivery's decision chose. */
function nextAfterEnd(attempt: WebhookAttempt): number {
  return Date.parse(attempt.nextAttemptAt as string) - Date.parse(attempt.attemptedAt) - attempt.durationMs;
}

/** The DynamoDB endpoint getPetById's client gets at its import and while it runs: a port nothing listens on. */
const unreachableStore = { AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9' };

/** getPetById in process for pet 7, with `variables` set while it runs. */
function getPetByIdIn(variables: Record<string, string>): Promise<Answer> {
  return withEnvironment(variables, () =>
    invoke(getPetById, {
      method: 'GET',
      resource: '/pets/{petId}',
      path: '/pets/7',
      pathParameters: { petId: '7' },
    }),
  );
}

/** The status and body the synthesized staging stack's gateway response of `type` answers. */
async function gatewayResponse(type: string): Promise<Answer> {
  const { template } = await servedStagingStack();
  const resource = Object.values(template.Resources).find(
    (candidate) =>
      candidate.Type === 'AWS::ApiGateway::GatewayResponse' && candidate.Properties?.ResponseType === type,
  );
  const properties = resource?.Properties as {
    StatusCode?: string;
    ResponseTemplates?: Record<string, string>;
  };
  return {
    status: Number(properties?.StatusCode),
    body: JSON.parse(properties?.ResponseTemplates?.['application/json'] ?? '""'),
  };
}

/** The same answer from every gateway response type of `types` (the first one's, when all agree). */
async function gatewayResponses(...types: string[]): Promise<Answer> {
  const answers = await Promise.all(types.map(gatewayResponse));
  for (const answer of answers) expect(answer).toEqual(answers[0]);
  return answers[0] as Answer;
}

/** The cursor a sold-only page of one entry links to (for a cursor used with another status). */
async function soldCursor(): Promise<string> {
  const page = await api.request('GET', '/inventory?limit=1&status=sold', {
    headers: { Authorization: api.authorization },
  });
  return /cursor=([^&>]+)/.exec(page.headers.get('link') ?? '')?.[1] as string;
}

const get = (path: string) => () => send('GET', path);
const patch7 =
  (body: string, headers: Record<string, string> = json) =>
  () =>
    send('PATCH', '/inventory/7', { body, headers });
const post = (path: string, body: unknown) => () => send('POST', path, { body });
/** Sends the example itself to `method path` after `arrange`. */
const sendExample =
  (method: string, path: string | (() => Promise<string>), arrange: () => Promise<void> = async () => {}) =>
  async (example: unknown) => {
    await arrange();
    return send(method, typeof path === 'string' ? path : await path(), { body: example });
  };

/** The proofs of the examples, run in this order (states arranged by each). */
const proofs: Record<string, Proof> = {
  // Lists first, while the store holds no order and no endpoint.
  'listOrders 200 empty': { produce: get('/store/orders') },
  'listWebhookEndpoints 200 none': { produce: get('/webhook-endpoints') },
  'listEvents 200 empty': { produce: get('/events') },
  'listInventoryHistory 200 empty': { produce: get('/inventory/9/history') },

  'listInventory 200 entries': {
    produce: async () => {
      await entries(['-42', 0, 'sold'], ['7', 12, 'available'], [int64Max, 3, 'pending']);
      return send('GET', `/inventory?petIds=-42,7,${int64Max}`);
    },
  },
  'listInventory 200 empty': { produce: get('/inventory?petIds=8') },
  'getInventoryItem 200 entry': {
    produce: async () => {
      await entries(['7', 12, 'available']);
      return send('GET', '/inventory/7');
    },
  },

  'updateInventory request count': {
    produce: sendExample('PATCH', '/inventory/7', () => entries(['7', 12, 'available'])),
  },
  'updateInventory request arrival': {
    produce: sendExample('PATCH', '/inventory/7', () => entries(['7', 12, 'available'])),
  },
  'updateInventory request sold': {
    produce: sendExample('PATCH', '/inventory/7', () => entries(['7', 12, 'available'])),
  },
  'updateInventory request return': {
    produce: sendExample('PATCH', '/inventory/7', () => entries(['7', 12, 'available'])),
  },
  'updateInventory 200 updated': {
    produce: async () => {
      await entries(['7', 12, 'available']);
      return send('PATCH', '/inventory/7', { body: { quantity: 5 } });
    },
  },
  'updateInventory 200 int64Maximum': {
    produce: async () => {
      await entries([int64Max, 3, 'pending']);
      return send('PATCH', `/inventory/${int64Max}`, { body: { quantity: 5 } });
    },
  },
  'updateInventory 409 insufficientStock': {
    produce: async () => {
      await entries(['7', 2, 'available']);
      return send('PATCH', '/inventory/7', { body: { adjustBy: -5 } });
    },
  },
  'updateInventory 409 quantityOutOfRange': {
    produce: async () => {
      await entries(['7', 2147483640, 'available']);
      return send('PATCH', '/inventory/7', { body: { adjustBy: 10 } });
    },
  },
  'updateInventory 409 stillRunning': {
    produce: async () => {
      await entries(['7', 1000, 'available']);
      return stillRunning('PATCH', '/inventory/7', { adjustBy: 1 });
    },
  },

  'batchUpdateInventory request shipment': {
    produce: sendExample('POST', '/inventory/batch', () =>
      entries(['9', 37, 'available'], ['3', 25, 'available'], ['6', 34, 'available']),
    ),
  },
  'batchUpdateInventory 200 applied': {
    produce: async () => {
      await entries(['9', 37, 'available'], ['3', 25, 'available'], ['6', 34, 'available']);
      return send('POST', '/inventory/batch', {
        body: {
          changes: [
            { petId: 9, quantity: 30, reason: 'arrival' },
            { petId: 3, quantity: 12, reason: 'arrival' },
            { petId: 6, status: 'pending', ifMatch: '*' },
          ],
        },
      });
    },
  },
  'batchUpdateInventory 404 noEntry': {
    produce: async () => {
      await deleteEntry('404');
      return send('POST', '/inventory/batch', {
        body: {
          changes: [
            { petId: 9, quantity: 1 },
            { petId: 404, quantity: 1 },
          ],
        },
      });
    },
  },
  'batchUpdateInventory 409 insufficientStock': {
    produce: async () => {
      await entries(['7', 2, 'available']);
      return send('POST', '/inventory/batch', { body: { changes: [{ petId: 7, adjustBy: -5 }] } });
    },
  },
  'batchUpdateInventory 409 quantityOutOfRange': {
    produce: async () => {
      await entries(['7', 2147483640, 'available']);
      return send('POST', '/inventory/batch', { body: { changes: [{ petId: 7, adjustBy: 10 }] } });
    },
  },
  'batchUpdateInventory 409 stillRunning': {
    produce: async () => {
      await entries(['9', 1000, 'available']);
      return stillRunning('POST', '/inventory/batch', { changes: [{ petId: 9, adjustBy: 1 }] });
    },
  },
  'batchUpdateInventory 412 changed': {
    produce: async () => {
      await entries(['9', 37, 'available'], ['3', 25, 'available'], ['6', 34, 'available']);
      return send('POST', '/inventory/batch', {
        body: {
          changes: [
            { petId: 9, quantity: 1 },
            { petId: 3, quantity: 1 },
            { petId: 6, status: 'pending', ifMatch: '"1-sold"' },
          ],
        },
      });
    },
  },

  'addPet request minimal': { produce: sendExample('POST', '/pets') },
  'addPet request full': { produce: sendExample('POST', '/pets', () => deleteEntry(int64Max)) },
  'addPet 201 added': { produce: post('/pets', { name: 'Rex' }), shapeOnly: ['id'] },
  'getPetById 200 pet': {
    produce: async () => {
      await deleteEntry('7');
      await send('POST', '/pets', {
        body: {
          id: 7,
          name: 'Rex',
          category: { id: 1, name: 'Dogs' },
          photoUrls: ['https://example.com/rex.jpg'],
          tags: [{ id: 7, name: 'friendly' }],
        },
      });
      return send('GET', '/pets/7');
    },
  },
  'getPetById 200 imported': {
    produce: async () => {
      await entries([int64Max, 3, 'sold']);
      return send('GET', `/pets/${int64Max}`);
    },
  },
  'getPetById 404 noPet': {
    produce: async () => {
      await deleteEntry('8');
      return send('GET', '/pets/8');
    },
  },
  'getPetById 410 retired': {
    produce: async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2027-07-01T00:00:00Z'));
      try {
        return await getPetByIdIn(unreachableStore);
      } finally {
        vi.useRealTimers();
      }
    },
  },
  'getPetById 500 internal': { produce: () => gatewayResponses('DEFAULT_5XX', 'INTEGRATION_FAILURE') },
  'getPetById 503 database': {
    produce: () => getPetByIdIn(unreachableStore),
  },

  'placeOrder request one': {
    produce: sendExample('POST', '/store/orders', () => entries(['9', 1000, 'available'])),
  },
  'placeOrder request shipped': {
    produce: sendExample('POST', '/store/orders', () => entries(['9', 1000, 'available'])),
  },
  'placeOrder 201 placed': {
    produce: async () => {
      await entries(['9', 1000, 'available']);
      return send('POST', '/store/orders', {
        body: { petId: 9, quantity: 2, shipDate: '2026-12-01T10:00:00Z' },
      });
    },
    shapeOnly: ['id'],
  },
  'placeOrder 409 petUnavailable': {
    produce: async () => {
      await entries(['7', 3, 'sold']);
      return send('POST', '/store/orders', { body: { petId: 7, quantity: 1 } });
    },
  },
  'placeOrder 409 insufficientStock': {
    produce: async () => {
      await entries(['7', 1, 'available']);
      return send('POST', '/store/orders', { body: { petId: 7, quantity: 2 } });
    },
  },
  'placeOrder 409 stillRunning': {
    produce: async () => {
      await entries(['9', 100_000, 'available']);
      return stillRunning('POST', '/store/orders', { petId: 9, quantity: 1 });
    },
  },
  'listOrders 200 page': {
    produce: async () => {
      await entries([int64Max, 10, 'available']);
      await send('POST', '/store/orders', { body: { petId: BigInt(int64Max), quantity: 1 } });
      await placedOrder(2);
      return send('GET', '/store/orders?limit=2');
    },
    shapeOnly: ['id'],
  },
  'getOrderById 200 placed': {
    produce: async () => send('GET', `/store/orders/${await placedOrder(2)}`),
    shapeOnly: ['id'],
  },
  'updateOrder request approve': {
    produce: sendExample('PATCH', () => placedOrder().then((id) => `/store/orders/${id}`)),
  },
  'updateOrder request deliver': {
    produce: sendExample('PATCH', async () => {
      const id = await placedOrder();
      await send('PATCH', `/store/orders/${id}`, { body: { status: 'approved' } });
      return `/store/orders/${id}`;
    }),
  },
  'updateOrder request cancel': {
    produce: sendExample('PATCH', () => placedOrder().then((id) => `/store/orders/${id}`)),
  },
  'updateOrder 200 delivered': {
    produce: async () => {
      const id = await placedOrder(2);
      await send('PATCH', `/store/orders/${id}`, { body: { status: 'approved' } });
      return send('PATCH', `/store/orders/${id}`, { body: { status: 'delivered' } });
    },
    shapeOnly: ['id'],
  },
  'updateOrder 200 cancelled': {
    produce: async () =>
      send('PATCH', `/store/orders/${await placedOrder(2)}`, { body: { status: 'cancelled' } }),
    shapeOnly: ['id'],
  },
  'updateOrder 409 fromDelivered': {
    produce: async () => {
      const id = await placedOrder(2);
      await send('PATCH', `/store/orders/${id}`, { body: { status: 'approved' } });
      await send('PATCH', `/store/orders/${id}`, { body: { status: 'delivered' } });
      return send('PATCH', `/store/orders/${id}`, { body: { status: 'cancelled' } });
    },
    shapeOnly: ['message'],
  },
  'createWebhookEndpoint 201 created': {
    produce: () => createDeployed({ url: 'https://example.com/hooks' }, 'a1a1a1a1a1a1'),
    shapeOnly: ['id', 'createdAt', 'secret'],
  },
  'createWebhookEndpoint 200 reenabled': {
    produce: async () => {
      const body = { url: 'https://example.com/hooks', events: ['inventory.changed', 'order.changed'] };
      const created = await createDeployed(body, 'b2b2b2b2b2b2');
      const id = (created.body as { id: string }).id;
      await breakerDisabled(id, '2026-11-20T10:00:00.000Z', '2026-11-25T10:00:05.000Z');
      return createDeployed(body, 'b2b2b2b2b2b2');
    },
    shapeOnly: ['id', 'createdAt'],
  },
  'createWebhookEndpoint request local': { produce: sendExample('POST', '/webhook-endpoints') },
  'createWebhookEndpoint request allEvents': {
    produce: (example) => createDeployed(example, 'c3c3c3c3c3c3'),
  },
  'createWebhookEndpoint request ordersOnly': {
    produce: (example) => createDeployed(example, 'c3c3c3c3c3c3'),
  },
  'listWebhookEndpoints 200 two': {
    produce: async () => {
      const owner = 'd4d4d4d4d4d4';
      await createDeployed(
        { url: 'https://example.com/hooks', events: ['inventory.changed', 'order.changed'] },
        owner,
      );
      const orders = await createDeployed(
        { url: 'https://example.com/hooks/orders', events: ['order.changed'] },
        owner,
      );
      await breakerDisabled(
        (orders.body as { id: string }).id,
        '2026-11-20T10:00:00.000Z',
        '2026-11-25T10:00:05.000Z',
      );
      return invoke(listEndpoints, {
        method: 'GET',
        resource: '/webhook-endpoints',
        path: '/webhook-endpoints',
        keyId: owner,
      });
    },
    shapeOnly: ['id', 'createdAt'],
  },
  'listWebhookAttempts 200 failing': {
    produce: async (example) => {
      const endpointId = await ownEndpoint('attempts');
      const recorder = attemptRecorder(api.dynamoDb, names().webhookAttempts, (message) => {
        throw new Error(message);
      });
      // Each attempt of the example as deliverWebhooks records it when it ends (now): the delivered one a
      // minute ago, the failed one a second ago.
      const [failed, delivered] = (example as { items: WebhookAttempt[] }).items as [
        WebhookAttempt,
        WebhookAttempt,
      ];
      const attempts: [WebhookAttempt, number][] = [
        [delivered, 60_000],
        [failed, 1_000],
      ];
      for (const [attempt, ago] of attempts) {
        await recorder.record({
          message: { endpointId, eventId: attempt.eventId, type: 'inventory.changed' },
          attempt: attempt.attempt,
          started: Date.now() - ago,
          // The next time the example states, after this attempt's end (now), as the delivery's decision gives it.
          nextAttemptAt:
            attempt.nextAttemptAt === null ? undefined : new Date(Date.now() + nextAfterEnd(attempt)),
          outcome:
            attempt.outcome === 'delivered'
              ? { delivered: true, status: attempt.responseStatus as number }
              : {
                  delivered: false,
                  status: attempt.responseStatus as number,
                  error: `HTTP ${attempt.responseStatus}`,
                },
        });
      }
      return send('GET', `/webhook-endpoints/${endpointId}/attempts`);
    },
    shapeOnly: ['id', 'attemptedAt', 'durationMs', 'nextAttemptAt'],
    check: (example, body) => {
      // Each attempt's next time after its end as the example states it (the write's own ms aside), or none.
      const nextTimes = (page: unknown) =>
        (page as { items: WebhookAttempt[] }).items.map((attempt) =>
          attempt.nextAttemptAt === null ? null : Math.round(nextAfterEnd(attempt) / 1000),
        );
      expect(nextTimes(body)).toEqual(nextTimes(example));
      // An attempt's id starts with the epoch ms of its attemptedAt (`wa_` + 13 digits), in both.
      for (const page of [example, body]) {
        for (const attempt of (page as { items: WebhookAttempt[] }).items)
          expect(attempt.id.slice(3, 16)).toBe(String(Date.parse(attempt.attemptedAt)).padStart(13, '0'));
      }
    },
  },
  'listWebhookAttempts 200 none': {
    produce: async () => send('GET', `/webhook-endpoints/${await ownEndpoint('quiet')}/attempts`),
  },
  'rotateWebhookSecret 200 rotated': {
    produce: async () => send('POST', `/webhook-endpoints/${await ownEndpoint('rotate')}/rotate-secret`),
    shapeOnly: ['id', 'secret'],
  },
  'InvalidRedelivery badEventId': {
    produce: post('/webhook-endpoints/ws_q3JtW0m9cVx1ZsA4/redeliveries', {
      eventId: 'test_3q2-7wAAAAAAAAAA',
    }),
  },
  'InvalidRedelivery unknownMember': {
    produce: post('/webhook-endpoints/ws_q3JtW0m9cVx1ZsA4/redeliveries', {
      eventId: 'inventory.7.1',
      endpointId: 'ws_q3JtW0m9cVx1ZsA4',
    }),
  },
  'RedeliveryNotFound noEndpoint': {
    produce: post('/webhook-endpoints/ws_q3JtW0m9cVx1ZsA4/redeliveries', {
      eventId: 'inventory.7532043913479288511.1',
    }),
  },
  'RedeliveryNotFound notSent': {
    produce: async () => {
      const endpointId = await ownEndpoint('redeliver');
      const answer = await send('POST', `/webhook-endpoints/${endpointId}/redeliveries`, {
        body: { eventId: 'inventory.7532043913479288511.1' },
      });
      // The endpoint's id is this run's own: the example's in its place, the rest of the message exact.
      return {
        ...answer,
        body: JSON.parse(JSON.stringify(answer.body).replaceAll(endpointId, 'ws_q3JtW0m9cVx1ZsA4')),
      };
    },
  },
  'WebhookEndpointNotFound noEndpoint': {
    produce: () => send('DELETE', '/webhook-endpoints/ws_q3JtW0m9cVx1ZsA4'),
  },
  'LimitReached twenty': {
    produce: async () => {
      const key = await keyWith('webhooks:manage', 'inventory:read');
      for (let n = 1; n <= 20; n += 1) {
        const created = await send('POST', '/webhook-endpoints', {
          body: { url: `http://127.0.0.1:4000/${n}` },
          key,
        });
        expect(created.status).toBe(201);
      }
      return send('POST', '/webhook-endpoints', { body: { url: 'http://127.0.0.1:4000/21' }, key });
    },
  },
  'InvalidWebhookEndpoint notHttps': { produce: () => createDeployed({ url: 'http://example.com/hooks' }) },
  'InvalidWebhookEndpoint privateAddress': {
    produce: post('/webhook-endpoints', { url: 'https://10.0.0.8/hooks' }),
  },
  'InvalidWebhookEndpoint metadata': {
    produce: post('/webhook-endpoints', { url: 'https://169.254.169.254/latest' }),
  },
  'InvalidWebhookEndpoint unknownEvent': {
    produce: post('/webhook-endpoints', { url: 'http://127.0.0.1:4000/hooks', events: ['pet.deleted'] }),
  },

  'Unauthorized unauthorized': { produce: () => send('GET', '/inventory', { key: '' }) },
  'Forbidden missingScope': {
    produce: async () =>
      send('PATCH', '/inventory/7', { body: { quantity: 1 }, key: await keyWith('inventory:read') }),
  },
  'ForbiddenEventType missingScope': {
    produce: async () =>
      send('POST', '/webhook-endpoints', {
        body: { url: 'http://127.0.0.1:4000/hooks' },
        key: await keyWith('inventory:read'),
      }),
  },
  'ForbiddenEventType eventTypeScope': {
    produce: async () =>
      send('POST', '/webhook-endpoints', {
        body: { url: 'http://127.0.0.1:4000/hooks', events: ['order.changed'] },
        key: await keyWith('webhooks:manage', 'inventory:read'),
      }),
  },
  'ForbiddenEventType noReadableType': {
    produce: async () =>
      send('POST', '/webhook-endpoints', {
        body: { url: 'http://127.0.0.1:4000/hooks' },
        key: await keyWith('webhooks:manage'),
      }),
  },
  'InventoryEntryNotFound noEntry': {
    produce: async () => {
      await deleteEntry(int64Max);
      return send('GET', `/inventory/${int64Max}`);
    },
  },
  'PreconditionFailed changed': {
    produce: async () => {
      await entries(['7', 12, 'available']);
      return send('PATCH', '/inventory/7', { body: { quantity: 1 }, headers: { 'If-Match': '"1-sold"' } });
    },
  },
  'PetExists exists': {
    produce: async () => {
      await entries(['7', 12, 'available']);
      return send('POST', '/pets', { body: { id: 7, name: 'Rex' } });
    },
  },
  'RouteNotFound noRoute': { produce: get('/nothing-here') },
  'OrderNotFound noOrder': { produce: get('/store/orders/1') },
  'IdempotencyKeyReused reused': {
    produce: async () => {
      await entries(['9', 1000, 'available']);
      const headers = { 'Idempotency-Key': 'reused-order' };
      await send('POST', '/store/orders', { body: { petId: 9, quantity: 1 }, headers });
      return send('POST', '/store/orders', { body: { petId: 9, quantity: 2 }, headers });
    },
  },
  'IdempotencyKeyReused reusedBatch': {
    produce: async () => {
      await entries(['9', 1000, 'available']);
      const headers = { 'Idempotency-Key': 'reused-batch' };
      await send('POST', '/inventory/batch', { body: { changes: [{ petId: 9, quantity: 1 }] }, headers });
      return send('POST', '/inventory/batch', { body: { changes: [{ petId: 9, quantity: 2 }] }, headers });
    },
  },
  'PayloadTooLarge tooLarge': { produce: () => gatewayResponses('REQUEST_TOO_LARGE') },
  'TooManyRequests throttled': { produce: () => gatewayResponses('THROTTLED', 'QUOTA_EXCEEDED') },
  'InternalError internal': { produce: () => gatewayResponses('DEFAULT_5XX', 'INTEGRATION_FAILURE') },
  'ServiceUnavailable database': {
    produce: () => getPetByIdIn(unreachableStore),
  },
  'ServiceUnavailable gateway': {
    produce: () => gatewayResponses('AUTHORIZER_FAILURE', 'AUTHORIZER_CONFIGURATION_ERROR'),
  },
  'InvalidRequest gateway': {
    produce: () => gatewayResponses('BAD_REQUEST_BODY', 'BAD_REQUEST_PARAMETERS', 'DEFAULT_4XX'),
  },

  'InvalidRequest badPetId': { produce: get('/inventory/01') },
  'InvalidRequest badPercentEncoding': { produce: get('/inventory/%FF') },
  'InvalidRequest undeclaredQueryParameter': { produce: get('/inventory/7?dryRun=true') },
  'InvalidRequest badQuantity': { produce: patch7('{"quantity": -1}') },
  'InvalidRequest missingQuantity': { produce: patch7('{"reason": "arrival"}') },
  'InvalidRequest unknownMember': {
    produce: () => send('PATCH', '/store/orders/1', { body: '{"quantity": 1}', headers: json }),
  },
  'InvalidRequest manyUnknownMembers': {
    produce: post('/pets', { name: 'Rex', a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1 }),
  },
  'InvalidRequest missingBody': { produce: patch7('') },
  'InvalidRequest notAnObject': { produce: patch7('[5]') },
  'InvalidRequest invalidJson': { produce: patch7('{"quantity": 5') },
  'InvalidRequest forbiddenMember': { produce: patch7('{"__proto__": {"quantity": 5}}') },
  'InvalidRequest badIfMatch': { produce: patch7('{"quantity": 5}', { ...json, 'If-Match': 'twelve' }) },
  'InvalidRequest badContentType': { produce: patch7('{"quantity": 5}', { 'Content-Type': 'text/plain' }) },
  'InvalidListQuery badLimit': { produce: get('/inventory?limit=0') },
  'InvalidListQuery badStatus': { produce: get('/inventory?status=lost') },
  'InvalidListQuery badCursor': { produce: get('/inventory?limit=1&cursor=made.up') },
  'InvalidListQuery cursorOfAnotherFilter': {
    produce: async () => send('GET', `/inventory?limit=1&status=pending&cursor=${await soldCursor()}`),
  },
  'InvalidListQuery repeated': { produce: get('/inventory?limit=1&limit=2') },
  'InvalidEventsQuery badLimit': { produce: get('/events?limit=1001') },
  'InvalidEventsQuery badType': { produce: get('/events?type=pet.deleted') },
  'InvalidEventsQuery badAfter': { produce: get('/events?after=yesterday') },
  'InvalidEventsQuery unknownEvent': { produce: get('/events?after=inventory.8080.1') },
  'InvalidEventsQuery undeclaredQueryParameter': { produce: get('/events?cursor=abc') },
  'InvalidEventsQuery repeated': { produce: get('/events?type=order.changed&type=order.changed') },
  'batchUpdateInventory 400 duplicate': {
    produce: post('/inventory/batch', {
      changes: [
        { petId: 9, quantity: 1 },
        { petId: 9, quantity: 2 },
      ],
    }),
  },
  'batchUpdateInventory 400 badElement': {
    produce: post('/inventory/batch', {
      changes: [
        { petId: 7, quantity: 1 },
        { petId: 9, quantity: 1 },
        { petId: 21, quantity: -1 },
      ],
    }),
  },
  'batchUpdateInventory 400 tooMany': {
    produce: post('/inventory/batch', {
      changes: Array.from({ length: 101 }, (_, petId) => ({ petId, quantity: 1 })),
    }),
  },
  'getPetById 400 badPetId': { produce: get('/pets/abc') },
};

/** The status an example answers with: its response's (`<operationId> <status> <name>`), else its body's. */
function statusOf(name: string, example: unknown): number {
  const status = /^\S+ ([0-9]{3}) /.exec(name)?.[1];
  return status === undefined ? Number((example as { status?: number }).status) : Number(status);
}

describe('the examples of openapi.yaml', () => {
  it('each has a proof, here or in the event path suite, and each proof an example', () => {
    expect([...Object.keys(proofs), ...eventPathExamples].sort()).toEqual(
      [...documentExamples.keys()].sort(),
    );
  });

  it.each(Object.keys(proofs))(
    '%s is produced by the service',
    async (name) => {
      const proof = proofs[name] as Proof;
      const example = documentExamples.get(name);
      const answer = await proof.produce(example);
      if (/^\S+ request /.test(name)) {
        expect(answer.status, `${name}: ${exactJson(answer.body)}`).toBeGreaterThanOrEqual(200);
        expect(answer.status, `${name}: ${exactJson(answer.body)}`).toBeLessThan(300);
      } else {
        expect(answer).toEqual({
          status: statusOf(name, example),
          body: shaped(example, proof.shapeOnly ?? []),
        });
        proof.check?.(example, answer.body);
      }
    },
    60_000,
  );
});
