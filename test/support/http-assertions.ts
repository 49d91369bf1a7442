/** Shared assertions: an exact Error response, and a refusal that changes nothing (docs/contract.md "Errors"). */
import { expect } from 'vitest';
import { observe } from './contract-oracle.ts';
import { expectDeclared } from './openapi-validator.ts';
import type { RawResponse } from './raw-http.ts';
import type { TestApi, TestResponse } from './test-api.ts';

/** The message of a path petId that is not an int64 written in decimal (docs/contract.md "Identifiers"). */
export const badPetIdMessage =
  "petId must be an integer from -9223372036854775808 to 9223372036854775807, written in decimal without leading zeros or '+'";

/** The contract's Error body: exactly `code`, `message` and `status`. */
export function errorBody(status: number, code: string, message: string) {
  return { code, message, status };
}

/** Asserts an Error response of `fetch` or of the raw client exactly: status, JSON content type, whole body. */
export function expectError(
  response: TestResponse | RawResponse,
  status: number,
  code: string,
  message: string,
): void {
  expect(response.status, response.text).toBe(status);
  expect(observe(response).contentType).toBe('application/json');
  expect(JSON.parse(response.text)).toEqual(errorBody(status, code, message));
}

/**
 * Sends `request` and asserts that it is answered with the exact Error response of `status`, `code` and
 * `message`, and that the inventory table of `api` is afterwards exactly as it was before.
 */
export async function expectRefused(
  api: Pick<TestApi, 'tableItems'>,
  request: () => Promise<TestResponse | RawResponse>,
  status: number,
  code: string,
  message: string,
): Promise<void> {
  const before = await api.tableItems();
  expectError(await request(), status, code, message);
  expect(await api.tableItems()).toEqual(before);
}

/**
 * Sends `method path` with the test key, `Content-Type: application/json` when there is a `body`, and
 * `headers` (added or replacing by name), and asserts that the response is one openapi.yaml declares.
 */
export async function declaredRequest(
  api: Pick<TestApi, 'request' | 'authorization'>,
  method: string,
  path: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<TestResponse> {
  const { body, headers = {} } = options;
  const response = await api.request(method, path, {
    headers: {
      Authorization: api.authorization,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body }),
  });
  expectDeclared(method, path, response);
  return response;
}
