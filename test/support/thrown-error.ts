/** The Error body a validation throws (lib/http/errors.ts `HttpError`), for the unit suites. */
import { expect } from 'vitest';
import { type ErrorBody, HttpError } from '#lib/http/errors.ts';

/** The Error body of the HttpError `run` throws, or undefined when it returns; any other throw fails the test. */
export function thrownErrorBody(run: () => unknown): ErrorBody | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return (error as HttpError).body;
  }
}
