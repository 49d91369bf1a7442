/** The Error body and the errors that carry it: docs/service-spec.md §2, §7; docs/contract.md "Errors". */

/** Machine-readable error codes, snake_case and stable (docs/contract.md "Errors"). */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'insufficient_stock'
  | 'quantity_out_of_range'
  | 'pet_unavailable'
  | 'invalid_transition'
  | 'limit_reached'
  | 'gone'
  | 'precondition_failed'
  | 'payload_too_large'
  | 'idempotency_key_reused'
  | 'too_many_requests'
  | 'internal_error'
  | 'service_unavailable';

/** HTTP status of each error code (docs/contract.md "Errors" table). */
export const errorStatus: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  insufficient_stock: 409,
  quantity_out_of_range: 409,
  pet_unavailable: 409,
  invalid_transition: 409,
  limit_reached: 409,
  gone: 410,
  precondition_failed: 412,
  payload_too_large: 413,
  idempotency_key_reused: 422,
  too_many_requests: 429,
  internal_error: 500,
  service_unavailable: 503,
};

/** The Error body of every error response (docs/service-spec.md §2): `status` always equals the HTTP status. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

/** Builds the Error body for `code`, with the status taken from {@link errorStatus}. */
export function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { code, message, status: errorStatus[code] };
}

/** An error whose message is safe to show to the client: thrown by lib code, rendered by the error middleware. */
export class HttpError extends Error {
  readonly body: ErrorBody;
  /** Headers of the error response beside the middlewares' own (`Idempotent-Replayed`, say). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers: Readonly<Record<string, string>> = {}) {
    super(message);
    this.name = 'HttpError';
    this.body = errorBody(code, message);
    this.headers = headers;
  }
}

/** 400 `invalid_request`: bad petId, bad body or bad content type (docs/contract.md "Errors"). */
export function invalidRequest(message: string): HttpError {
  return new HttpError('invalid_request', message);
}

/** Most names a 400 message lists, and most characters (code points) of each (docs/contract.md "InventoryUpdate"). */
const namesShown = 5;
const nameLength = 64;

/**
 * `names` as a 400 message lists them: JSON-quoted, comma-separated, at most five, each cut to 64 characters,
 * then `and N more` when there are more (docs/contract.md "InventoryUpdate"); a message stays short whatever
 * the request holds.
 */
export function listedNames(names: readonly string[]): string {
  const shown = names
    .slice(0, namesShown)
    // The first 64 code points lie within the first 128 UTF-16 units: a long name is never spread whole.
    .map((name) => JSON.stringify([...name.slice(0, 2 * nameLength)].slice(0, nameLength).join('')))
    .join(', ');
  return names.length > namesShown ? `${shown} and ${names.length - namesShown} more` : shown;
}

/** The members of `body` not in `allowed`, named as the contract's messages name them ({@link listedNames}). */
export function unknownMembers(body: object, allowed: readonly string[]): string | undefined {
  const unknown = Object.keys(body).filter((member) => !allowed.includes(member));
  return unknown.length === 0 ? undefined : listedNames(unknown);
}

/** 404 `not_found`: no such pet, or no such route (docs/contract.md "Errors"). */
export function notFound(message: string): HttpError {
  return new HttpError('not_found', message);
}

/** The message of every 401 `unauthorized` (docs/contract.md "Authentication and authorization"). */
export const unauthorizedMessage = 'a valid API key is required: send Authorization: Bearer <API_KEY>';

/** 403 `forbidden`: the API key lacks the operation's scope (docs/contract.md "Authentication and authorization"). */
export function forbidden(message: string): HttpError {
  return new HttpError('forbidden', message);
}
