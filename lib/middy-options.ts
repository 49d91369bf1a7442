/** Options of the middy chain of every function of the service (HTTP functions and the authorizer). */

/**
 * middy's options for every function of the service. `timeoutEarlyInMillis: 0` turns off middy's early-timeout
 * timer (a timer and an AbortController per invocation): the DynamoDB client gives up after at most
 * maxAttempts x (connection + request timeout), 9 s, before the 10 s function timeout, so that timer could
 * only fire on a fault no request reaches; a Lambda timeout then still reaches the client as the
 * INTEGRATION_FAILURE gateway response (500 `internal_error`), the same answer the early timeout would give.
 */
export const middyOptions = { timeoutEarlyInMillis: 0 };
