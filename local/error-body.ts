/**
 * The service's Error body for what the local server answers itself, where no gateway response applies:
 * a request Node's parser refuses (400 `invalid_request`), a function that could not start before a
 * shutdown's deadline (503 `service_unavailable`): local-aws/behaviour.md G2.
 */
import { errorBody } from '#lib/http/errors.ts';

/** The Error body of `status` with `message` (the local AWS's `errorBody` option). */
export function serviceErrorBody(status: 400 | 503, message: string): unknown {
  return errorBody(status === 400 ? 'invalid_request' : 'service_unavailable', message);
}
