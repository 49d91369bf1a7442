/**
 * The audit trail of writes (docs/contract.md "Authentication and authorization"): every successful request of
 * an operation that is not a GET logs one INFO line `write completed` with the operation, the status and the
 * key's name and id from the authorizer's context, never the key. With the access log's principal
 * (infra/inventory-api.ts) a change can be traced to the key that made it.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Operation } from '../api.ts';
import { logger } from '../logger.ts';

/** Middy middleware for `operation` (nothing for a GET): see the module docstring. */
export function auditLog(operation: Operation): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    after: ({ event, response }) => {
      if (operation.method === 'GET') return;
      const context = event.requestContext.authorizer ?? {};
      logger.info('write completed', {
        operation: operation.name,
        status: response?.statusCode,
        keyName: context.keyName,
        keyId: context.keyId,
      });
    },
  };
}
