/** The bearer TOKEN authorizer (local-aws/behaviour.md A1-A9; docs/contract.md "Authentication and authorization"). */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { authorize, lastUseWindowStart, needsUseRecorded, type Principal } from '#lib/auth/authorize.ts';
import { keyStore } from '#lib/auth/key-store.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { logger } from '#lib/logger.ts';
import { middyOptions } from '#lib/middy-options.ts';
import { tables } from '#lib/tables.ts';

const keys = keyStore(documentClient, requiredEnv(tables.apiKeys.env));

/** The `principalId` of a refusal: no key is named, since none was accepted. */
const refusedPrincipal = 'refused';

/** `arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/*` from a method ARN `.../{stage}/{method}/{path}`. */
function stageArn(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}

/** The authorizer's result: `effect` on every method of the calling stage (one cached result serves all). */
function policy(
  effect: 'Allow' | 'Deny',
  principalId: string,
  methodArn: string,
): APIGatewayAuthorizerResult {
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: stageArn(methodArn) }],
    },
  };
}

/**
 * The error thrown when the keys table cannot be read. The Lambda runtime logs a thrown error with its message
 * and stack: the SDK's own error could name the table or an address, so a plain one without a stack is thrown.
 */
function keyStoreUnavailable(): Error {
  const error = new Error('key store unavailable');
  error.stack = undefined;
  return error;
}

/**
 * The authorizer's `context`, which API Gateway hands to the function as `requestContext.authorizer` (values
 * are strings, numbers or booleans only): `scope` is the key's scopes separated by spaces (as OAuth's `scope`);
 * `firstKeyId` the id that scopes its Idempotency-Keys (lib/auth/authorize.ts `Principal`); `rateLimit` /
 * `burstLimit` only when the key has its own throttle.
 */
export interface AuthorizerContext {
  [name: string]: string | number;
  keyName: string;
  keyId: string;
  firstKeyId: string;
  scope: string;
}

/** The context of an allowed request (see {@link AuthorizerContext}). */
export function authorizerContext(principal: Principal): AuthorizerContext {
  return {
    keyName: principal.keyName,
    keyId: principal.keyId,
    firstKeyId: principal.firstKeyId,
    scope: principal.scopes.join(' '),
    ...principal.throttle,
  };
}

/** The Lambda handler. */
export const handler = middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>(middyOptions)
  // The same options as every HTTP function, for the same reasons (lib/http/http-function.ts).
  .use(injectLambdaContext(logger, { logEvent: false }))
  .handler(async (event) => {
    const now = new Date();
    const decision = await authorize(event.authorizationToken, keys, now).catch((error: Error) => {
      logger.error('key store unavailable', { errorName: error.name });
      throw keyStoreUnavailable();
    });
    if (!decision) {
      logger.info('request refused');
      return policy('Deny', refusedPrincipal, event.methodArn);
    }
    const { principal, record } = decision;
    if (needsUseRecorded(record, now)) {
      await keys.recordUse(record.keyDigest, now, lastUseWindowStart(now)).catch((error: Error) => {
        logger.warn('last use not recorded', { keyName: principal.keyName, errorName: error.name });
      });
    }
    logger.debug('request allowed', { keyName: principal.keyName });
    return {
      ...policy('Allow', principal.keyName, event.methodArn),
      usageIdentifierKey: principal.usageIdentifier,
      context: authorizerContext(principal),
    };
  });
