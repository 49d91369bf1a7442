/**
 * The SAM CLI events of `sam/`, run as `sam local invoke` runs them, minus Docker: each function is bundled
 * with the stack's esbuild settings (infra/bundling.ts), loaded in a fresh Node process with the variables of
 * `sam/env-vars.json` (the endpoint pointed at an embedded DynamoDB seeded like `npm run sam:dynamodb`),
 * and invoked with the event file. Each result is the one docs/local-api.md "Invoking one function" documents
 * for that event.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inMemory, type LocalDynamoDb, startDynamoDb } from 'local-aws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bundleFileName, bundleFunction, projectRoot } from '#infra/bundling.ts';
import { functionLogicalId } from '#infra/inventory-stack.ts';
import { ensureTables } from '#lib/admin/tables.ts';
import { authorizer, type FunctionDefinition, operations } from '#lib/api.ts';
import {
  samApiKey,
  samApiKeyName,
  samPet,
  samTableNames,
  samUnknownPetId,
  seedSamFixtures,
} from '#local/sam-fixtures.ts';
import { errorBody } from '#test/support/http-assertions.ts';
import { section } from '#test/support/markdown.ts';
import { sha256Hex } from '#test/support/raw-tables.ts';
import { storeVariables } from '#test/support/test-dynamodb.ts';

/** What one invocation gave: the handler's return value, or the message of what it threw. */
type Outcome = { result: Record<string, unknown> } | { error: string };

/** `outcome` as its replay answers it: the same result with `Idempotent-Replayed: true`. */
function replayed(outcome: Outcome): Outcome {
  if (!('result' in outcome)) return outcome;
  const headers = outcome.result.headers as Record<string, string>;
  return { result: { ...outcome.result, headers: { ...headers, 'Idempotent-Replayed': 'true' } } };
}

/** One documented event: the file, the function it is for, the documented result and the exact check. */
interface EventCase {
  file: string;
  definition: FunctionDefinition;
  /** The first word of the "Expected result" cell of the events table (docs/local-api.md). */
  documented: string;
  check(outcome: Outcome): void;
  /**
   * Invoke a second time (a fresh process): the second outcome must equal the first, marked
   * `Idempotent-Replayed: true` (an idempotent replay, docs/contract.md "Store orders").
   */
  again?: true;
}

/** The operation of lib/api.ts named `name`. */
function operation(name: string): FunctionDefinition {
  const found = operations.find((o) => o.name === name);
  if (!found) throw new Error(`no operation ${name} in lib/api.ts`);
  return found;
}
const listInventory = operation('listInventory');
const updateInventory = operation('updateInventory');
const batchUpdateInventory = operation('batchUpdateInventory');
const getInventoryItem = operation('getInventoryItem');
const addPet = operation('addPet');
const getPetById = operation('getPetById');
const placeOrder = operation('placeOrder');
const listOrders = operation('listOrders');
const getOrderById = operation('getOrderById');
const updateOrder = operation('updateOrder');
const listInventoryHistory = operation('listInventoryHistory');
const createWebhookEndpoint = operation('createWebhookEndpoint');
const listWebhookEndpoints = operation('listWebhookEndpoints');
const deleteWebhookEndpoint = operation('deleteWebhookEndpoint');
const listWebhookAttempts = operation('listWebhookAttempts');
const sendTestWebhook = operation('sendTestWebhook');
const redeliverWebhook = operation('redeliverWebhook');
const rotateWebhookSecret = operation('rotateWebhookSecret');

/** The HTTP status and parsed body of a proxy result. */
function httpResult(outcome: Outcome): { statusCode: unknown; body: unknown; contentType: unknown } {
  if (!('result' in outcome)) throw new Error(`the handler threw: ${outcome.error}`);
  const { statusCode, body, headers } = outcome.result as {
    statusCode: number;
    body: string;
    headers: Record<string, string>;
  };
  return { statusCode, body: JSON.parse(body), contentType: headers['Content-Type'] };
}

/**
 * An event of an HTTP function: its result is `status` with a JSON `body` (matchers allowed), and carries at
 * least `headers`; the documented result is the status.
 */
function httpEvent(
  file: string,
  definition: FunctionDefinition,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): EventCase {
  return {
    file,
    definition,
    documented: String(status),
    check: (outcome) => {
      expect(httpResult(outcome)).toEqual({ statusCode: status, body, contentType: 'application/json' });
      if (headers) expect(outcome).toMatchObject({ result: { headers } });
    },
  };
}

/** An event of the authorizer: its result is exactly the policy `result`. */
function authorizerEvent(file: string, documented: string, result: Record<string, unknown>): EventCase {
  return {
    file,
    definition: authorizer,
    documented,
    check: (outcome) => expect(outcome).toEqual({ result }),
  };
}

/** The policy document of a TOKEN authorizer result with `effect` on the events' method ARN. */
const policyDocument = (effect: 'Allow' | 'Deny') => ({
  Version: '2012-10-17',
  Statement: [
    {
      Action: 'execute-api:Invoke',
      Effect: effect,
      Resource: 'arn:aws:execute-api:us-east-1:123456789012:abcdef1234/v1/*',
    },
  ],
});

/** The order a placeOrder event for pet 9001 creates: `quantity` units, any assigned id. */
const placedOrder = (quantity: number) => ({
  id: expect.any(Number),
  petId: 9001,
  quantity,
  status: 'placed',
  complete: false,
});

const cases: EventCase[] = [
  httpEvent('list-inventory-ok.json', listInventory, 200, [
    { petId: 9001, quantity: 5, status: 'available' },
  ]),
  // Entries by id: 9003 has none, so it is simply not there.
  httpEvent('list-inventory-by-id.json', listInventory, 200, [
    { petId: 9001, quantity: 5, status: 'available' },
  ]),
  httpEvent(
    'get-inventory-item-ok.json',
    getInventoryItem,
    200,
    { petId: 9001, quantity: 5, status: 'available' },
    { ETag: '"5-available"' },
  ),
  httpEvent(
    'add-pet-ok.json',
    addPet,
    201,
    { id: 9002, name: 'Rex', photoUrls: [], tags: [], status: 'pending' },
    { Location: '/v1/pets/9002' },
  ),
  httpEvent(
    'get-pet-by-id-ok.json',
    getPetById,
    200,
    { id: 9001, photoUrls: [], tags: [], status: 'available' },
    { Deprecation: '@1795392000', Sunset: 'Wed, 30 Jun 2027 23:59:59 GMT' },
  ),
  httpEvent('place-order-ok.json', placeOrder, 201, placedOrder(2)),
  { ...httpEvent('place-order-idempotent.json', placeOrder, 201, placedOrder(1)), again: true },
  httpEvent('list-orders-ok.json', listOrders, 200, expect.any(Array)),
  httpEvent(
    'get-order-by-id-unknown.json',
    getOrderById,
    404,
    errorBody(404, 'not_found', 'no order with id 404404'),
  ),
  httpEvent(
    'update-order-unknown.json',
    updateOrder,
    404,
    errorBody(404, 'not_found', 'no order with id 404404'),
  ),
  // The SAM CLI runs no stream consumer: pet 9001 has an entry and no change records.
  httpEvent('list-inventory-history-ok.json', listInventoryHistory, 200, []),
  {
    ...httpEvent('batch-update-inventory-idempotent.json', batchUpdateInventory, 200, {
      items: [{ petId: 9001, quantity: 7, status: 'available', etag: '"7-available"' }],
    }),
    again: true,
  },
  httpEvent('list-events-ok.json', operation('listEvents'), 200, [], {
    Link: '</v1/events?limit=10&after=MC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjAuMC4wLjA>; rel="next"',
  }),
  // Before the create: the events' key holds no endpoint yet.
  httpEvent('list-webhook-endpoints-ok.json', listWebhookEndpoints, 200, { items: [] }),
  httpEvent(
    'create-webhook-endpoint-ok.json',
    createWebhookEndpoint,
    201,
    {
      id: expect.stringMatching(/^ws_[A-Za-z0-9_-]{16}$/),
      url: 'https://93.184.215.14/hooks',
      events: ['order.changed'],
      state: 'enabled',
      createdAt: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    },
    { Location: expect.stringMatching(/^\/v1\/webhook-endpoints\/ws_/) },
  ),
  httpEvent(
    'delete-webhook-endpoint-unknown.json',
    deleteWebhookEndpoint,
    404,
    errorBody(404, 'not_found', 'this API key holds no webhook endpoint ws_AAAAAAAAAAAAAAAA'),
  ),
  httpEvent(
    'list-webhook-attempts-unknown.json',
    listWebhookAttempts,
    404,
    errorBody(404, 'not_found', 'this API key holds no webhook endpoint ws_AAAAAAAAAAAAAAAA'),
  ),
  httpEvent(
    'send-test-webhook-unknown.json',
    sendTestWebhook,
    404,
    errorBody(404, 'not_found', 'this API key holds no webhook endpoint ws_AAAAAAAAAAAAAAAA'),
  ),
  httpEvent(
    'redeliver-webhook-unknown.json',
    redeliverWebhook,
    404,
    errorBody(404, 'not_found', 'this API key holds no webhook endpoint ws_AAAAAAAAAAAAAAAA'),
  ),
  httpEvent(
    'rotate-webhook-secret-unknown.json',
    rotateWebhookSecret,
    404,
    errorBody(404, 'not_found', 'this API key holds no webhook endpoint ws_AAAAAAAAAAAAAAAA'),
  ),
  httpEvent('update-inventory-ok.json', updateInventory, 200, {
    petId: 9001,
    quantity: 12,
    status: 'available',
  }),
  httpEvent(
    'update-inventory-bad-body.json',
    updateInventory,
    400,
    errorBody(400, 'invalid_request', 'quantity must be an integer from 0 to 2147483647'),
  ),
  httpEvent(
    'update-inventory-unknown-pet.json',
    updateInventory,
    404,
    errorBody(404, 'not_found', `no inventory entry for petId ${samUnknownPetId}`),
  ),
  authorizerEvent('authorizer-valid-token.json', 'Allow', {
    principalId: samApiKeyName,
    policyDocument: policyDocument('Allow'),
    usageIdentifierKey: sha256Hex(`usage-identifier:${sha256Hex(samApiKey)}`),
    context: {
      keyName: samApiKeyName,
      keyId: sha256Hex(samApiKey).slice(0, 12),
      firstKeyId: sha256Hex(samApiKey).slice(0, 12),
      // A key stored before scopes existed: every scope.
      scope: 'inventory:read inventory:write orders:read orders:write events:read webhooks:manage',
    },
  }),
  authorizerEvent('authorizer-invalid-token.json', 'Deny', {
    principalId: 'refused',
    policyDocument: policyDocument('Deny'),
  }),
];

const envVars = JSON.parse(readFileSync(join(projectRoot, 'sam/env-vars.json'), 'utf8')) as Record<
  string,
  Record<string, string>
>;
const tableNames = samTableNames();

const scratch = mkdtempSync(join(tmpdir(), 'inventory-sam-events-'));
let db: LocalDynamoDb;
let client: DynamoDBClient;

beforeAll(async () => {
  db = await startDynamoDb({ dataDir: inMemory });
  client = new DynamoDBClient({
    endpoint: db.endpoint,
    region: 'us-east-1',
    credentials: db.credentials,
  });
  await ensureTables(client, tableNames);
  await Promise.all(
    [...operations, authorizer].map((d) => bundleFunction(d.entry, join(scratch, functionLogicalId(d)))),
  );
});

beforeEach(async () => {
  await seedSamFixtures(DynamoDBDocumentClient.from(client), tableNames);
});

afterAll(async () => {
  client?.destroy();
  await db?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * The Node program that plays the Lambda runtime: define the runtime's streaming globals, load the bundle, invoke
 * `handler(event, context)` once, or `handler(event, responseStream, context)` for a streaming function, whose
 * written response is collected as API Gateway reads it.
 */
const runtime = `
const [bundle, eventFile, invokeModule] = process.argv.slice(1);
const { readFileSync } = await import('node:fs');
const lambda = await import(invokeModule);
lambda.installStreamingRuntime();
const { handler } = await import(bundle);
let outcome;
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
try { outcome = { result: await lambda.invokeHandler(handler, event, lambda.lambdaContext('sam-local')) }; }
catch (error) { outcome = { error: error.message }; }
console.log('OUTCOME ' + JSON.stringify(outcome));
`;

/**
 * Invokes the bundled function `logicalId` with `sam/<file>` in a fresh process, as the SAM CLI would.
 * Asynchronous: the embedded DynamoDB serves the child from this process's event loop.
 */
async function invoke(logicalId: string, file: string): Promise<Outcome> {
  const bundle = pathToFileURL(join(scratch, logicalId, bundleFileName)).href;
  const result = await promisify(execFile)(
    process.execPath,
    [
      '--enable-source-maps',
      '--input-type=module',
      '-e',
      runtime,
      bundle,
      join(projectRoot, 'sam', file),
      pathToFileURL(join(projectRoot, 'test/support/lambda-invoke.ts')).href,
    ],
    {
      encoding: 'utf8',
      timeout: 20_000,
      env: {
        PATH: process.env.PATH,
        ...envVars[logicalId],
        AWS_REGION: 'us-east-1',
        ...storeVariables(db),
        POWERTOOLS_LOG_LEVEL: 'ERROR',
      },
    },
  );
  const line = result.stdout.split('\n').find((l) => l.startsWith('OUTCOME '));
  if (!line) throw new Error(`no outcome: ${result.stderr}`);
  return JSON.parse(line.slice('OUTCOME '.length)) as Outcome;
}

/** The rows of docs/local-api.md "Invoking one function": file -> [logical id, first word of the result]. */
function documentedEvents(): Map<string, [string, string]> {
  const page = section(
    readFileSync(join(projectRoot, 'docs/local-api.md'), 'utf8'),
    'Invoking one function',
  ).join('\n');
  const rows = page.matchAll(/^\|\s*`sam\/([\w-]+\.json)`\s*\|\s*`(\w+)`\s*\|\s*([^\s|,]+)/gm);
  return new Map([...rows].map((row) => [row[1] as string, [row[2] as string, row[3] as string]]));
}

describe('SAM CLI events', () => {
  it('every event file in sam/ has a case here and a row in docs/local-api.md', () => {
    const files = readdirSync(join(projectRoot, 'sam')).filter(
      (f) => f.endsWith('.json') && f !== 'env-vars.json',
    );
    expect(files.sort()).toEqual(cases.map((c) => c.file).sort());
    expect([...documentedEvents().keys()].sort()).toEqual(files.sort());
  });

  it('the fixtures are the ones the events name: pet 9001 with quantity 5, unknown pet 404404', () => {
    expect(samPet).toEqual({ petId: '9001', quantity: 5, status: 'available' });
    expect(samUnknownPetId).toBe('404404');
  });

  it.each(cases.map((c) => [c.file, c] as const))(
    '%s gives its documented result',
    async (file, eventCase) => {
      const logicalId = functionLogicalId(eventCase.definition);
      expect(documentedEvents().get(file)).toEqual([logicalId, eventCase.documented]);
      const outcome = await invoke(logicalId, file);
      eventCase.check(outcome);
      if (eventCase.again) expect(await invoke(logicalId, file)).toEqual(replayed(outcome));
    },
  );
});
