/** The audit trail of writes: docs/contract.md "Authentication and authorization". */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Operation } from '../api.ts';
import { logger } from '../logger.ts';

/** Middy middleware: one INFO `write completed` line (operation, status, key name and id); none for a GET. */
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
