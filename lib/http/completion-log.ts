/** One log line per successful request; a write's is the audit trail (docs/implementation.md "Audit"). */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Operation } from '../api.ts';
import { logger } from '../logger.ts';

/**
 * Middy middleware: a write logs INFO `write completed` (operation, status, key name and id, never the key); a read
 * logs DEBUG `request completed` (API Gateway's access log and Lambda's REPORT line already record every request).
 */
export function completionLog(
  operation: Operation,
): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  if (operation.method === 'GET') {
    return { after: ({ response }) => logger.debug('request completed', { status: response?.statusCode }) };
  }
  return {
    after: ({ event, response }) => {
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
