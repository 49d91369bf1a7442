/**
 * Hostile headers (docs/contract.md "Authentication and authorization", "InventoryUpdate" content type, "Errors"), property-based:
 * 500 generated header sets per run, each on a valid update of an existing pet (or, one in four, a list
 * request) sent with 0 to 3 `Authorization` and 0 to 3 `Content-Type` headers, names in any case, values
 * from scheme, spacing, media-type and parameter variants, mutated, revoked, expired and unknown keys,
 * random printable text and long values (up to 3 KB each).
 *
 * Oracle (test/support/contract-oracle.ts, independent of lib/): authorized when the value is `Bearer`
 * (any case), one or more spaces, then a valid key; content type valid when it is `application/json` or an
 * `application/...+json` type with well-formed parameters. Then 200, else 401 `unauthorized` (checked
 * first) or 400 `invalid_request`. Never a 5xx, and the table changes only by accepted updates.
 *
 * Decisions where neither the contract nor HTTP fixes the answer:
 * - The same header sent more than once: when every value is valid the request is valid, when none is it is
 *   refused; when they disagree either answer is accepted (RFC 9110 §5.3 forbids a sender to repeat these
 *   singleton fields, and API Gateway, like the stand-in, passes only one value on). Never a 5xx either way.
 * - Header size: values up to a few KB are the contract's business and get its answers (an 8 KB key is an
 *   unknown key: 401). A header block beyond the HTTP server's limit (Node's default 16 KB; API Gateway's
 *   own limit is 10 KB of request line and headers) never reaches the API: the server answers 413 with the
 *   Error body (local-aws/apigateway/http-server.ts). The test pins that it reaches nothing and changes nothing.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, test } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import type { InventoryItem } from '#lib/inventory/inventory-item.ts';
import {
  expectContractError,
  inventoryItemJson,
  isContractAuthorization,
  isContractJsonContentType,
  observe,
} from '#test/support/contract-oracle.ts';
import { type ModelItem, modelledSuite } from '#test/support/inventory-model.ts';
import { sha256Hex } from '#test/support/raw-tables.ts';
import { unthrottled } from '#test/support/test-api.ts';

const existing: InventoryItem[] = [{ petId: '7', quantity: 1, status: 'available' }];
const hostile = modelledSuite(existing);
const unauthorizedMessage = 'a valid API key is required: send Authorization: Bearer <API_KEY>';
const contentTypeMessage = 'Content-Type must be application/json';

/** A second valid key, with an expiry in the future. */
const futureKey = generateApiKey();
const revokedKey = generateApiKey();
const expiredKey = generateApiKey();
/** Well-formed but never stored. */
const unknownKey = generateApiKey();

beforeAll(async () => {
  const createdAt = '2026-01-01T00:00:00.000Z';
  await hostile.api.keys.put({
    keyDigest: apiKeyDigest(futureKey),
    name: 'future',
    createdAt,
    expiresAt: '2999-01-01T00:00:00.000Z',
    // Never throttled: the suite sends hundreds of requests with this key in a few seconds.
    ...unthrottled,
  });
  await hostile.api.keys.put({ keyDigest: apiKeyDigest(revokedKey), name: 'revoked', createdAt });
  await hostile.api.keys.revoke(apiKeyDigest(revokedKey), new Date());
  await hostile.api.keys.put({
    keyDigest: apiKeyDigest(expiredKey),
    name: 'expired',
    createdAt,
    expiresAt: '2026-01-02T00:00:00.000Z',
  });
});

const validKeys = () => [hostile.api.apiKey, futureKey];

/**
 * The id of the key an accepted request was sent with: the one valid key its `Authorization` values carry, or,
 * when they carry both (which one API Gateway takes the contract does not say), the one recorded on the entry.
 */
async function senderKeyId(authorizations: readonly string[]): Promise<string> {
  const ids = validKeys()
    .filter((key) => authorizations.some((value) => isContractAuthorization(value, [key])))
    .map((key) => sha256Hex(key).slice(0, 12));
  if (ids.length === 1) return ids[0] as string;
  const recorded = (await hostile.api.tableItems()).find((item) => item.petId === '7')?.keyId;
  expect(ids).toContain(recorded);
  return recorded as string;
}

/** The possible outcomes of a set of header values: each value valid or not. */
function outcomes(values: readonly string[], valid: (value: string) => boolean): Set<boolean> {
  return values.length === 0 ? new Set([false]) : new Set(values.map(valid));
}

/**
 * Sends a valid update of pet 7 with the given header pairs and checks the answer against the oracle.
 * @returns the response status.
 */
async function checkHeaders(
  headers: readonly (readonly [string, string])[],
  quantity: number,
  method: 'PATCH' | 'GET' = 'PATCH',
): Promise<number> {
  const valuesOf = (name: string) =>
    headers.filter(([header]) => header.toLowerCase() === name).map(([, value]) => value);
  const auth = outcomes(valuesOf('authorization'), (value) => isContractAuthorization(value, validKeys()));
  const json = outcomes(valuesOf('content-type'), isContractJsonContentType);
  const allowed = new Set<number>();
  if (auth.has(false)) allowed.add(401);
  if (auth.has(true) && method === 'GET') allowed.add(200);
  if (auth.has(true) && method === 'PATCH') for (const ok of json) allowed.add(ok ? 200 : 400);

  const response = await hostile.client.send(
    method === 'PATCH'
      ? { method, path: '/inventory/7', headers, body: JSON.stringify({ quantity }) }
      : { method, path: '/inventory', headers },
  );
  const observed = observe(response);
  const context = `${JSON.stringify(headers).slice(0, 2000)} -> ${response.status} ${response.text}`;
  expect([...allowed], context).toContain(response.status);
  if (response.status === 401) expectContractError(observed, 401, unauthorizedMessage);
  else if (response.status === 400) expectContractError(observed, 400, contentTypeMessage);
  else if (method === 'GET') {
    expect(observed.contentType).toBe('application/json');
    expect(response.text).toBe(`[${inventoryItemJson(hostile.model.get('7') as ModelItem)}]`);
  } else {
    expect(observed.contentType).toBe('application/json');
    const keyId = await senderKeyId(valuesOf('authorization'));
    expect(response.text).toBe(
      inventoryItemJson(hostile.model.applyUpdate('7', { quantity }, response.window, keyId)),
    );
  }
  await hostile.model.expectTable(hostile.api, context);
  return response.status;
}

const b64token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,60}=*$/);
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
  maxLength: 40,
});
const latin1 = fc.string({
  unit: fc.integer({ min: 0x80, max: 0xff }).map((code) => String.fromCharCode(code)),
  minLength: 1,
  maxLength: 4,
});
const ows = fc.constantFrom('', '', ' ', '\t', '  ');

const credential = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom('valid', 'future', 'revoked', 'expired', 'unknown').map((kind) => kind),
  },
  fc.constantFrom('upper', 'chop', 'pad', 'extra', 'prefix', 'double', 'empty'),
  b64token.map((token) => `token:${token}`),
  fc.nat({ max: 3 * 1024 }).map((length) => `long:${length}`),
);

/** Resolves a generated credential description to its text (the keys exist only once the service runs). */
function credentialText(kind: string): string {
  const key = hostile.api.apiKey;
  if (kind.startsWith('token:')) return kind.slice('token:'.length);
  if (kind.startsWith('long:')) return `psk_${'A'.repeat(Number(kind.slice('long:'.length)))}`;
  const texts: Record<string, string> = {
    valid: key,
    future: futureKey,
    revoked: revokedKey,
    expired: expiredKey,
    unknown: unknownKey,
    upper: key.toUpperCase(),
    chop: key.slice(0, -1),
    pad: `${key}=`,
    extra: `${key}x`,
    prefix: `x${key}`,
    double: `${key} ${key}`,
    empty: '',
  };
  return texts[kind] ?? kind;
}

/** An `Authorization` value: scheme variant, separator variant, credential, surrounding whitespace. */
const authorizationValue = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        ows,
        fc.constantFrom(
          'Bearer',
          'bearer',
          'BEARER',
          'bEaReR',
          'Basic',
          'Token',
          'Bearer:',
          'Beare',
          'Bearerx',
          '',
        ),
        fc.constantFrom(' ', ' ', '  ', '   ', '\t', '', ' \t', ':'),
        credential,
        ows,
      )
      .map(
        ([lead, scheme, separator, kind, trail]) =>
          `${lead}${scheme}${separator}${credentialText(kind)}${trail}`,
      ),
  },
  fc.constant('').map(() => credentialText('valid')),
  printable,
  latin1.map((text) => `Bearer ${text}`),
);

/** A `Content-Type` value: media type variants with parameters, or random text. */
const contentTypeValue = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(
        ows,
        fc.constantFrom(
          'application',
          'application',
          'Application',
          'APPLICATION',
          'text',
          'applications',
          'app',
          '',
        ),
        fc.constantFrom('/', '/', '/', '', '//', ' /'),
        fc.constantFrom(
          'json',
          'json',
          'JSON',
          'Json',
          'vnd.api+json',
          'problem+json',
          'merge-patch+json',
          'ld+json',
          'VND.API+JSON',
          'x-amz-json-1.0',
          'json5',
          'jsonx',
          'xjson',
          'json+xml',
          '+json',
          'javascript',
          'x-www-form-urlencoded',
          'octet-stream',
          '',
        ),
        fc.array(
          fc.tuple(
            fc.constantFrom(';', ';', '; ', ';\t', ';  '),
            fc.constantFrom(
              'charset=utf-8',
              'charset=UTF-8',
              'charset="utf-8"',
              'v=1',
              'q=0.5',
              'a="b; c"',
              '',
            ),
          ),
          { maxLength: 3 },
        ),
        ows,
      )
      .map(
        ([lead, type, slash, subtype, params, trail]) =>
          `${lead}${type}${slash}${subtype}${params.map(([sep, param]) => sep + param).join('')}${trail}`,
      ),
  },
  printable,
  latin1.map((text) => `application/json${text}`),
);

const caseVariant = (name: string) =>
  fc.constantFrom(
    name,
    name.toLowerCase(),
    name.toUpperCase(),
    name.replace(/^./, (c) => c.toLowerCase()),
  );

/** `Bearer` in any case, one or more spaces, a valid key: valid by the contract, but varied on the wire. */
const validAuthorization = fc
  .tuple(
    ows,
    fc.constantFrom('Bearer', 'bearer', 'BEARER', 'bEaReR'),
    fc.constantFrom(' ', '  '),
    fc.boolean(),
    ows,
  )
  .map(
    ([lead, scheme, spaces, future, trail]) =>
      `${lead}${scheme}${spaces}${future ? futureKey : hostile.api.apiKey}${trail}`,
  );

/** `application/json` or a `+json` type in any case, with or without parameters. */
const validContentType = fc
  .tuple(
    fc.constantFrom(
      'application/json',
      'Application/JSON',
      'application/vnd.api+json',
      'application/merge-patch+json',
    ),
    fc.constantFrom('', ';charset=utf-8', '; charset=UTF-8', ';v=1; q="a b"'),
  )
  .map(([type, params]) => type + params);

/**
 * 0 to 3 headers named `name` (any case): mostly one header, valid or a variant, sometimes none or
 * duplicates mixing valid values and variants.
 */
const headerValues = (name: string, valid: fc.Arbitrary<string>, variant: fc.Arbitrary<string>) => {
  const one = fc.tuple(caseVariant(name), fc.oneof(valid, variant));
  return fc.oneof(
    { weight: 6, arbitrary: one.map((header) => [header]) },
    { weight: 1, arbitrary: fc.array(one, { minLength: 0, maxLength: 3 }) },
  );
};

const headerSet = fc
  .tuple(
    headerValues('Authorization', validAuthorization, authorizationValue),
    headerValues('Content-Type', validContentType, contentTypeValue),
    fc.boolean(),
  )
  .map(([auth, type, authFirst]) => (authFirst ? [...auth, ...type] : [...type, ...auth]));

describe('headers, property-based against the contract oracle', () => {
  test('authorizes exactly Bearer + a valid key and accepts exactly JSON content types, else 401 then 400', async () => {
    await fc.assert(
      fc.asyncProperty(
        headerSet,
        fc.integer({ min: 0, max: 2147483647 }),
        fc.constantFrom('PATCH', 'PATCH', 'PATCH', 'GET'),
        async (headers, quantity, method) => {
          await checkHeaders(headers, quantity, method);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('header examples', () => {
  const json = ['Content-Type', 'application/json'] as const;
  test.each([
    ['Bearer <key>', (key: string) => `Bearer ${key}`, 200],
    ['bearer <key>', (key: string) => `bearer ${key}`, 200],
    ['BEARER   <key>', (key: string) => `BEARER   ${key}`, 200],
    ['Bearer<TAB><key>', (key: string) => `Bearer\t${key}`, 401],
    ['Basic <key>', (key: string) => `Basic ${key}`, 401],
    ['<key> alone', (key: string) => key, 401],
    ['Bearer <key>=', (key: string) => `Bearer ${key}=`, 401],
    ['Bearer <8 KB unknown key>', () => `Bearer psk_${'B'.repeat(8 * 1024)}`, 401],
  ])('answers Authorization: %s with %i', async (_name, value, status) => {
    expect(await checkHeaders([['Authorization', value(hostile.api.apiKey)], json], 5)).toBe(status);
  });

  test.each([
    ['application/json', 200],
    ['application/json; charset=utf-8', 200],
    ['APPLICATION/JSON;CHARSET=UTF-8', 200],
    ['application/merge-patch+json', 200],
    ['application/problem+json; charset="utf-8"', 200],
    ['application/json ; charset=utf-8 (RFC 9110 allows whitespace before ;)', 200],
    ['application/vnd.pet_store+json (RFC 6838 allows _ in type names)', 200],
    ['text/plain', 400],
    ['text/json', 400],
    ['application/jsonx', 400],
    ['application/json+xml', 400],
    ['application/x-www-form-urlencoded', 400],
    ['', 400],
  ])('answers Content-Type: %s with %i', async (label, status) => {
    const value = label.replace(/ \(.*\)$/, '');
    expect(
      await checkHeaders(
        [
          ['Authorization', hostile.api.authorization],
          ['Content-Type', value],
        ],
        6,
      ),
    ).toBe(status);
  });

  test('answers a PATCH without Content-Type with 400 invalid_request', async () => {
    expect(await checkHeaders([['Authorization', hostile.api.authorization]], 7)).toBe(400);
  });

  test('answers a header block beyond the server limit (20 KB Authorization) with 413 and the Error body, reaching nothing', async () => {
    const response = await hostile.client.send({
      method: 'PATCH',
      path: '/inventory/7',
      headers: [['Authorization', `Bearer ${'C'.repeat(20 * 1024)}`], json],
      body: '{"quantity":8}',
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.text)).toEqual({
      code: 'payload_too_large',
      message: 'request too large: at most 6 MB of body and 10,240 bytes of headers',
      status: 413,
    });
    await hostile.model.expectTable(hostile.api);
    expect(await checkHeaders([['Authorization', hostile.api.authorization], json], 9)).toBe(200);
  });

  test('refuses a 100 KB header with 413 or by closing the connection, reaching nothing, and serves the next request', async () => {
    // The server answers 413 and closes the socket as soon as Node's 16 KB limit is passed; a client still
    // writing the rest of its 100 KB headers may see the reset before it reads the 413.
    const outcome = await hostile.client
      .send({
        method: 'PATCH',
        path: '/inventory/7',
        headers: [['Authorization', `Bearer ${'C'.repeat(100 * 1024)}`], json],
        body: '{"quantity":10}',
      })
      .then(
        (response) => response.status,
        (error: NodeJS.ErrnoException) => error.code,
      );
    expect([413, 'ECONNRESET', 'EPIPE']).toContain(outcome);
    await hostile.model.expectTable(hostile.api);
    expect(await checkHeaders([['Authorization', hostile.api.authorization], json], 11)).toBe(200);
  });
});
