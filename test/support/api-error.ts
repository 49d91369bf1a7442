/** The typed client's rejection (`@pet-store/client` `ApiError`), for the client suites. */
import { ApiError } from '@pet-store/client';
import { expect } from 'vitest';

/** The rejection of `promise`, which must be an ApiError (a resolved promise or any other rejection fails). */
export async function apiError(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}
