/**
 * Unit tests of the response validator (test/support/openapi-validator.ts), and a check that every example
 * in openapi.yaml is a valid response by that validator.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  parseJsonExact,
  type ResponseToValidate,
  validateResponse,
} from '#test/support/openapi-validator.ts';

const json = { 'Content-Type': 'application/json' };
/** The headers of a 200 of getInventoryItem or updateInventory, which declare a required ETag. */
const jsonWithTag = { ...json, ETag: '"5-pending"' };
const errorBody = (code: string, status: number) => JSON.stringify({ code, message: 'a message', status });

describe('parseJsonExact', () => {
  it('keeps integers beyond 2^53 exact as bigint and leaves other numbers alone', () => {
    expect(
      parseJsonExact('{"a":9223372036854775807,"b":-9223372036854775808,"c":7,"d":1.5,"e":1e300}'),
    ).toEqual({
      a: 9223372036854775807n,
      b: -9223372036854775808n,
      c: 7,
      d: 1.5,
      e: 1e300,
    });
    expect(parseJsonExact('9007199254740993')).toBe(9007199254740993n);
  });

  it('throws on text that is not JSON', () => {
    expect(() => parseJsonExact('{')).toThrow(SyntaxError);
  });
});

describe('validateResponse', () => {
  /** A response of `method path` with `status`, `body` and `headers` (default `Content-Type: application/json`). */
  const response = (
    method: string,
    path: string,
    status: number,
    body: string,
    headers: ResponseToValidate['headers'] = json,
  ): ResponseToValidate => ({ method, path, status, headers, body });
  /** A 200 of listInventory with `body`. */
  const list = (body: string) => response('GET', '/inventory', 200, body);
  /** An InventoryItem with `petId` written as given. */
  const item = (petId: string) => `{"petId":${petId},"quantity":5,"status":"pending"}`;
  /** A 200 of updateInventory for `petId` answering `body`, with its ETag. */
  const updated = (petId: string, body = item(petId)) =>
    response('PATCH', `/inventory/${petId}`, 200, body, jsonWithTag);
  const notFound = errorBody('not_found', 404);
  /** Any non-empty list of problems. */
  const someProblem = expect.arrayContaining([expect.any(String)]);

  it.each<[string, ResponseToValidate]>([
    [
      'a valid list',
      list(
        '[{"petId":-1,"quantity":0,"status":"sold"},{"petId":7,"quantity":2147483647,"status":"available"}]',
      ),
    ],
    ['an empty list', list('[]')],
    ['an item with petId 9223372036854775807, exactly', updated('9223372036854775807')],
    ['an item with petId -9223372036854775808, exactly', updated('-9223372036854775808')],
    ['a required header in its declared form', response('GET', '/inventory/1', 200, item('1'), jsonWithTag)],
    ...(
      [
        [400, 'invalid_request'],
        [401, 'unauthorized'],
        [404, 'not_found'],
        [413, 'payload_too_large'],
        [429, 'too_many_requests'],
        [500, 'internal_error'],
        [503, 'service_unavailable'],
      ] as const
    ).map(([status, code]): [string, ResponseToValidate] => [
      `the declared error ${status} ${code} of updateInventory`,
      response('PATCH', '/inventory/7', status, errorBody(code, status)),
    ]),
    [
      'Content-Type with parameters',
      response('GET', '/inventory', 200, '[]', { 'content-type': 'application/json; charset=utf-8' }),
    ],
    [
      'Content-Type in any header case',
      response('GET', '/inventory', 200, '[]', new Headers({ 'CONTENT-TYPE': 'Application/JSON' })),
    ],
    ['a path matching a path template', response('GET', '/inventory/7', 404, notFound)],
    ['a path with a query string', response('GET', '/inventory?x=1', 200, '[]')],
  ])('accepts %s', (_name, valid) => {
    expect(validateResponse(valid)).toEqual([]);
  });

  /** A list of one valid item whose `member` is written `value`: left out when undefined, added when new. */
  const listWith = (member: string, value?: string) => {
    const members = { petId: '1', quantity: '5', status: '"sold"', [member]: value };
    const written = Object.entries(members).filter(([, text]) => text !== undefined);
    return list(`[{${written.map(([name, text]) => `"${name}":${text}`).join(',')}}]`);
  };

  it.each([
    ['a petId that is not an integer', 'petId', '1.5', 'body/0/petId: must be integer'],
    ['a petId that is a string', 'petId', '"7"', 'body/0/petId: must be integer'],
    ['an item without status', 'status', undefined, "must have required property 'status'"],
    ['an item with an extra member', 'name', '"Rex"', 'body/0: must not have the member "name"'],
    ['a negative quantity', 'quantity', '-1', 'body/0/quantity: must be >= 0'],
    ['a quantity above 2147483647', 'quantity', '2147483648', 'body/0/quantity: must be <= 2147483647'],
    ['an unknown status', 'status', '"lost"', 'body/0/status: must be one of "available", "pending", "sold"'],
  ])('rejects a list with %s, naming the member', (_name, member, value, problem) => {
    expect(validateResponse(listWith(member, value))).toEqual([expect.stringContaining(problem)]);
  });

  it.each<[string, ResponseToValidate, unknown]>([
    [
      'a petId one beyond the int64 range',
      updated('1', item('9223372036854775808')),
      [expect.stringContaining('body/petId: must be an integer from')],
    ],
    [
      'a response without a required header',
      response('GET', '/inventory/1', 200, item('1')),
      ['getInventoryItem (GET /inventory/{petId}) 200: the required header etag is missing'],
    ],
    [
      'a required header not in its declared form',
      response('GET', '/inventory/1', 200, item('1'), { ...json, ETag: 'W/"5-pending"' }),
      [expect.stringContaining('the header etag (W/"5-pending") does not match')],
    ],
    [
      'an item where a list is declared',
      list('{"petId":1,"quantity":5,"status":"sold"}'),
      [expect.stringContaining('body: must be array')],
    ],
    [
      'an Error body with an extra member',
      response(
        'PATCH',
        '/inventory/7',
        404,
        '{"code":"not_found","message":"no inventory entry for petId 7","status":404,"petId":7}',
      ),
      [expect.stringContaining('body: must not have the member "petId"')],
    ],
    [
      'an Error body whose status does not match the response status',
      response('PATCH', '/inventory/7', 400, errorBody('invalid_request', 404)),
      [expect.stringContaining('body/status: must be 400')],
    ],
    [
      'an Error body whose code does not match the response status',
      response('PATCH', '/inventory/7', 400, errorBody('not_found', 400)),
      [expect.stringContaining('body/code: must be "invalid_request"')],
    ],
    [
      'an Error body with an unknown code',
      response('PATCH', '/inventory/7', 503, errorBody('no_such_code', 503)),
      expect.arrayContaining([expect.stringContaining('body/code: must be one of "invalid_request"')]),
    ],
    [
      'a status listInventory does not declare',
      response('GET', '/inventory', 404, notFound),
      [
        'listInventory (GET /inventory): status 404 is not declared (declared: 200, 400, 401, 403, 413, 429, 500, 503)',
      ],
    ],
    [
      'a status updateInventory does not declare (415)',
      response('PATCH', '/inventory/7', 415, errorBody('invalid_request', 415)),
      [expect.stringContaining('status 415 is not declared')],
    ],
    [
      'a status updateInventory does not declare (410)',
      response('PATCH', '/inventory/7', 410, errorBody('gone', 410)),
      [
        'updateInventory (PATCH /inventory/{petId}): status 410 is not declared (declared: 200, 400, 401, 403, 404, 409, 412, 413, 422, 429, 500, 503)',
      ],
    ],
    [
      'an Error body where an InventoryItem is declared',
      response('PATCH', '/inventory/7', 200, notFound),
      someProblem,
    ],
    [
      'an InventoryItem where an Error body is declared',
      response('PATCH', '/inventory/7', 404, '{"petId":7,"quantity":5,"status":"sold"}'),
      someProblem,
    ],
    [
      'a Content-Type other than application/json',
      response('GET', '/inventory', 200, '[]', { 'Content-Type': 'text/plain' }),
      ['listInventory (GET /inventory) 200: Content-Type is text/plain, expected application/json'],
    ],
    [
      'a response without Content-Type',
      response('GET', '/inventory', 200, '[]', {}),
      [expect.stringContaining('Content-Type is missing')],
    ],
    [
      'a body that is not JSON',
      list('Internal Server Error'),
      ['listInventory (GET /inventory) 200: the body is not valid JSON'],
    ],
    [
      'an undeclared path',
      response('GET', '/orders', 404, notFound),
      ['GET /orders: no path of openapi.yaml matches /orders'],
    ],
    [
      'an undeclared method (POST)',
      response('POST', '/inventory/', 200, '[]'),
      ['POST /inventory/: openapi.yaml declares no POST on /inventory/{petId} (only GET, PATCH)'],
    ],
    [
      'an undeclared method (DELETE)',
      response('DELETE', '/inventory/7', 404, notFound),
      ['DELETE /inventory/7: openapi.yaml declares no DELETE on /inventory/{petId} (only GET, PATCH)'],
    ],
  ])('rejects %s', (_name, invalid, problems) => {
    expect(validateResponse(invalid)).toEqual(problems);
  });
});

describe('the examples of openapi.yaml', () => {
  type Node = Record<string, unknown>;
  const document = parse(readFileSync(new URL('../../openapi.yaml', import.meta.url), 'utf8'), {
    intAsBigInt: true,
  }) as {
    paths: Record<string, Record<string, Node>>;
    components: { responses: Record<string, Node>; headers?: Record<string, Node> };
  };
  /** JSON text of a YAML value read with intAsBigInt: bigints are written digit for digit. */
  const toJson = (value: unknown) =>
    JSON.stringify(value, (_key, member) =>
      typeof member === 'bigint' ? JSON.rawJSON(member.toString()) : member,
    );
  /** A response object, following a `$ref` to `#/components/responses`. */
  const responseOf = (declared: Node): Node | undefined => {
    const ref = declared.$ref;
    return typeof ref === 'string' ? document.components.responses[ref.split('/').pop() ?? ''] : declared;
  };
  /** The `example` of every header a response declares (following `$ref`s to `#/components/headers`). */
  const headerExamplesOf = (declared: Node): Record<string, string> => {
    const headers = (responseOf(declared)?.headers ?? {}) as Record<string, Node>;
    return Object.fromEntries(
      Object.entries(headers).map(([name, header]) => {
        const ref = header.$ref;
        const target =
          typeof ref === 'string' ? document.components.headers?.[ref.split('/').pop() ?? ''] : header;
        return [name, String(target?.example)];
      }),
    );
  };
  /** The example values of a response (following a `$ref` to `#/components/responses`). */
  const examplesOf = (declared: Node): unknown[] => {
    const node = responseOf(declared);
    const media = (node?.content as Record<string, Node> | undefined)?.['application/json'];
    return Object.values((media?.examples ?? {}) as Record<string, { value: unknown }>).map(
      ({ value }) => value,
    );
  };

  // Every response with a body (a 204 has none: deleteWebhookEndpoint's).
  const responses = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      Object.entries(operation.responses as Record<string, Node>)
        .filter(([status]) => status !== '204')
        .map(([status, declared]) => ({
          label: `${method.toUpperCase()} ${path} ${status}`,
          method,
          path: path.replace('{petId}', '9223372036854775807'),
          status: Number(status),
          examples: examplesOf(declared),
          headers: { ...json, ...headerExamplesOf(declared) },
        })),
    ),
  );

  it.each(responses.map((response) => [response.label, response] as const))(
    '%s: every example is a valid response',
    (_label, { method, path, status, examples, headers }) => {
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) {
        expect(validateResponse({ method, path, status, headers, body: toJson(example) })).toEqual([]);
      }
    },
  );

  it('writes the int64 example 9223372036854775807 exactly', () => {
    const bodies = responses.flatMap(({ examples }) => examples.map(toJson));
    expect(bodies.some((body) => body.includes('"petId":9223372036854775807'))).toBe(true);
  });
});
