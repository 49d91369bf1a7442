/** Options of the middy chain of every function of the service (HTTP functions and the authorizer). */

/**
 * middy's options. `timeoutEarlyInMillis: 0`: no early-timeout timer per invocation, since the DynamoDB
 * client gives up before the function's timeout; a Lambda timeout is still answered 500
 * (INTEGRATION_FAILURE).
 */
export const middyOptions = { timeoutEarlyInMillis: 0 };
