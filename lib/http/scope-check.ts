/** The scope check of every HTTP function: docs/contract.md "Authentication and authorization". */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Operation } from '../api.ts';
import { logger } from '../logger.ts';
import { forbidden } from './errors.ts';

/** The scopes an authorizer context's `scope` value grants (names separated by spaces; absent: none). */
export function grantedScopes(scope: unknown): string[] {
  return typeof scope === 'string' ? scope.split(' ').filter((name) => name !== '') : [];
}

/**
 * Middy middleware for `operation`: its scope must be among the context's. The authorizer's cached Allow
 * covers every route of the stage, so this is where a key is held to its scopes.
 * @throws HttpError 403 when the key lacks the operation's scope (also when the context carries none).
 */
export function scopeCheck(operation: Operation): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: ({ event }) => {
      const context = event.requestContext.authorizer ?? {};
      if (!grantedScopes(context.scope).includes(operation.scope)) {
        const fields = { keyName: context.keyName, keyId: context.keyId, operation: operation.name };
        logger.info('scope refused', { ...fields, scope: operation.scope });
        throw forbidden(`this API key lacks the scope ${operation.scope} that ${operation.name} requires`);
      }
    },
  };
}
