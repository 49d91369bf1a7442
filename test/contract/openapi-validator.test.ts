/**
 * Unit tests of the response validator (test/support/openapi-validator.ts), and a check that every example
 * in openapi.yaml is a valid response by that validator.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseJsonExact, validateResponse } from '#test/support/openapi-validator.ts';

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
  it('accepts a valid list, sorted or not, and an empty one', () => {
    const body =
      '[{"petId":-1,"quantity":0,"status":"sold"},{"petId":7,"quantity":2147483647,"status":"available"}]';
    expect(validateResponse({ method: 'GET', path: '/inventory', status: 200, headers: json, body })).toEqual(
      [],
    );
    expect(
      validateResponse({ method: 'get', path: '/inventory', status: 200, headers: json, body: '[]' }),
    ).toEqual([]);
  });

  it('accepts an item with petId 9223372036854775807 and -9223372036854775808, exactly', () => {
    for (const petId of ['9223372036854775807', '-9223372036854775808']) {
      const body = `{"petId":${petId},"quantity":5,"status":"pending"}`;
      expect(
        validateResponse({
          method: 'PATCH',
          path: `/inventory/${petId}`,
          status: 200,
          headers: jsonWithTag,
          body,
        }),
      ).toEqual([]);
    }
  });

  it('rejects a petId one beyond the int64 range', () => {
    const body = '{"petId":9223372036854775808,"quantity":5,"status":"pending"}';
    const problems = validateResponse({
      method: 'PATCH',
      path: '/inventory/1',
      status: 200,
      headers: jsonWithTag,
      body,
    });
    expect(problems).toEqual([expect.stringContaining('body/petId: must be an integer from')]);
  });

  it('requires the headers a response declares required, in their declared form', () => {
    const body = '{"petId":1,"quantity":5,"status":"pending"}';
    const response = { method: 'GET', path: '/inventory/1', status: 200, body };
    expect(validateResponse({ ...response, headers: json })).toEqual([
      'getInventoryItem (GET /inventory/{petId}) 200: the required header etag is missing',
    ]);
    expect(validateResponse({ ...response, headers: { ...json, ETag: 'W/"5-pending"' } })).toEqual([
      expect.stringContaining('the header etag (W/"5-pending") does not match'),
    ]);
    expect(validateResponse({ ...response, headers: jsonWithTag })).toEqual([]);
  });

  it('rejects a petId that is not an integer, or a string', () => {
    for (const petId of ['1.5', '"7"']) {
      const body = `[{"petId":${petId},"quantity":5,"status":"pending"}]`;
      const problems = validateResponse({
        method: 'GET',
        path: '/inventory',
        status: 200,
        headers: json,
        body,
      });
      expect(problems).toEqual([expect.stringContaining('body/0/petId: must be integer')]);
    }
  });

  it('rejects an item with a missing or extra member, or a bad quantity or status', () => {
    const validate = (body: string) =>
      validateResponse({ method: 'GET', path: '/inventory', status: 200, headers: json, body });
    expect(validate('[{"petId":1,"quantity":5}]')).toEqual([
      expect.stringContaining("must have required property 'status'"),
    ]);
    expect(validate('[{"petId":1,"quantity":5,"status":"sold","name":"Rex"}]')).toEqual([
      expect.stringContaining('body/0: must not have the member "name"'),
    ]);
    expect(validate('[{"petId":1,"quantity":-1,"status":"sold"}]')).toEqual([
      expect.stringContaining('body/0/quantity: must be >= 0'),
    ]);
    expect(validate('[{"petId":1,"quantity":2147483648,"status":"sold"}]')).toEqual([
      expect.stringContaining('body/0/quantity: must be <= 2147483647'),
    ]);
    expect(validate('[{"petId":1,"quantity":5,"status":"lost"}]')).toEqual([
      expect.stringContaining('body/0/status: must be one of "available", "pending", "sold"'),
    ]);
    expect(validate('{"petId":1,"quantity":5,"status":"sold"}')).toEqual([
      expect.stringContaining('body: must be array'),
    ]);
  });

  it('accepts each declared error of updateInventory', () => {
    const errors: [number, string][] = [
      [400, 'invalid_request'],
      [401, 'unauthorized'],
      [404, 'not_found'],
      [413, 'payload_too_large'],
      [429, 'too_many_requests'],
      [500, 'internal_error'],
      [503, 'service_unavailable'],
    ];
    for (const [status, code] of errors) {
      const body = errorBody(code, status);
      expect(
        validateResponse({ method: 'PATCH', path: '/inventory/7', status, headers: json, body }),
      ).toEqual([]);
    }
  });

  it('rejects an Error body with an extra member', () => {
    const body = '{"code":"not_found","message":"no inventory entry for petId 7","status":404,"petId":7}';
    const problems = validateResponse({
      method: 'PATCH',
      path: '/inventory/7',
      status: 404,
      headers: json,
      body,
    });
    expect(problems).toEqual([expect.stringContaining('body: must not have the member "petId"')]);
  });

  it('rejects an Error body whose status or code does not match the response status', () => {
    const validate = (status: number, body: string) =>
      validateResponse({ method: 'PATCH', path: '/inventory/7', status, headers: json, body });
    expect(validate(400, errorBody('invalid_request', 404))).toEqual([
      expect.stringContaining('body/status: must be 400'),
    ]);
    expect(validate(400, errorBody('not_found', 400))).toEqual([
      expect.stringContaining('body/code: must be "invalid_request"'),
    ]);
    expect(validate(503, errorBody('no_such_code', 503))).toEqual(
      expect.arrayContaining([expect.stringContaining('body/code: must be one of "invalid_request"')]),
    );
  });

  it('rejects a status the operation does not declare', () => {
    expect(
      validateResponse({
        method: 'GET',
        path: '/inventory',
        status: 404,
        headers: json,
        body: errorBody('not_found', 404),
      }),
    ).toEqual([
      'listInventory (GET /inventory): status 404 is not declared (declared: 200, 400, 401, 403, 413, 429, 500, 503)',
    ]);
    expect(
      validateResponse({
        method: 'PATCH',
        path: '/inventory/7',
        status: 415,
        headers: json,
        body: errorBody('invalid_request', 415),
      }),
    ).toEqual([expect.stringContaining('status 415 is not declared')]);
  });

  it('rejects an error body where the operation declares an InventoryItem, and the reverse', () => {
    const item = '{"petId":7,"quantity":5,"status":"sold"}';
    expect(
      validateResponse({
        method: 'PATCH',
        path: '/inventory/7',
        status: 200,
        headers: json,
        body: errorBody('not_found', 404),
      }),
    ).not.toEqual([]);
    expect(
      validateResponse({ method: 'PATCH', path: '/inventory/7', status: 404, headers: json, body: item }),
    ).not.toEqual([]);
  });

  it('requires Content-Type application/json (parameters allowed, any header case)', () => {
    const validate = (headers: Headers | Record<string, string>) =>
      validateResponse({ method: 'GET', path: '/inventory', status: 200, headers, body: '[]' });
    expect(validate({ 'content-type': 'application/json; charset=utf-8' })).toEqual([]);
    expect(validate(new Headers({ 'CONTENT-TYPE': 'Application/JSON' }))).toEqual([]);
    expect(validate({ 'Content-Type': 'text/plain' })).toEqual([
      'listInventory (GET /inventory) 200: Content-Type is text/plain, expected application/json',
    ]);
    expect(validate({})).toEqual([expect.stringContaining('Content-Type is missing')]);
  });

  it('rejects a body that is not JSON', () => {
    expect(
      validateResponse({
        method: 'GET',
        path: '/inventory',
        status: 200,
        headers: json,
        body: 'Internal Server Error',
      }),
    ).toEqual(['listInventory (GET /inventory) 200: the body is not valid JSON']);
  });

  it('matches path templates and rejects undeclared paths and methods', () => {
    const notFound = errorBody('not_found', 404);
    expect(
      validateResponse({ method: 'GET', path: '/inventory/7', status: 404, headers: json, body: notFound }),
    ).toEqual([]);
    expect(
      validateResponse({
        method: 'PATCH',
        path: '/inventory/7',
        status: 409,
        headers: json,
        body: errorBody('conflict', 409),
      }),
    ).toEqual([
      'updateInventory (PATCH /inventory/{petId}): status 409 is not declared (declared: 200, 400, 401, 403, 404, 412, 413, 429, 500, 503)',
    ]);
    expect(
      validateResponse({ method: 'GET', path: '/inventory?x=1', status: 200, headers: json, body: '[]' }),
    ).toEqual([]);
    expect(
      validateResponse({ method: 'GET', path: '/orders', status: 404, headers: json, body: notFound }),
    ).toEqual(['GET /orders: no path of openapi.yaml matches /orders']);
    expect(
      validateResponse({ method: 'POST', path: '/inventory/', status: 200, headers: json, body: '[]' }),
    ).toEqual(['POST /inventory/: openapi.yaml declares no POST on /inventory/{petId} (only GET, PATCH)']);
    expect(
      validateResponse({
        method: 'DELETE',
        path: '/inventory/7',
        status: 404,
        headers: json,
        body: notFound,
      }),
    ).toEqual([
      'DELETE /inventory/7: openapi.yaml declares no DELETE on /inventory/{petId} (only GET, PATCH)',
    ]);
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

  const responses = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      Object.entries(operation.responses as Record<string, Node>).map(([status, declared]) => ({
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
