/**
 * The bearer authorizer: an API Gateway TOKEN authorizer on the `Authorization` header (docs/service-spec.md §5;
 * docs/contract.md "Authentication and authorization"; docs/api-gateway-behaviour.md).
 *
 * Event: `APIGatewayTokenAuthorizerEvent` (`authorizationToken`, `methodArn`).
 * Allowed: returns an IAM policy allowing `execute-api:Invoke` on every method of the calling API's stage (so
 * one cached result serves every route) with the key's name as `principalId`; `usageIdentifierKey` the key's
 * usage identifier (its API Gateway API key, for the usage plan's per-key throttle); and the context
 * {@link AuthorizerContext}, whose `scope` the functions check (lib/http/scope-check.ts).
 * Last use: when the key has none recorded in the current cache period, one conditional UpdateItem records it
 * (lib/auth/authorize.ts); a failure of that write is logged and does not refuse the request.
 * Refused (missing, malformed, unknown, revoked or expired key): a policy denying the same resources, which
 * API Gateway answers with the ACCESS_DENIED gateway response (401). A refusal is a result, not a Lambda
 * function error: it logs no stack and does not count in the function's error metric.
 * DynamoDB failure: logs the error's class name and throws `Error('key store unavailable')` (no stack, nothing
 * internal); API Gateway answers with the AUTHORIZER_CONFIGURATION_ERROR gateway response (503).
 * Environment: `API_KEYS_TABLE_NAME`.
 */
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

/** The authorizer's result: `effect` on every method of the calling stage, for `principalId`. */
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
 * `rateLimit` / `burstLimit` only when the key has its own throttle.
 */
export interface AuthorizerContext {
  [name: string]: string | number;
  keyName: string;
  keyId: string;
  scope: string;
}

/** The context of an allowed request (see {@link AuthorizerContext}). */
export function authorizerContext(principal: Principal): AuthorizerContext {
  return {
    keyName: principal.keyName,
    keyId: principal.keyId,
    scope: principal.scopes.join(' '),
    ...principal.throttle,
  };
}

/** The Lambda handler. */
export const handler = middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>(middyOptions)
  // No `resetKeys`: nothing is ever appended to the logger (fields go with each call), see http-function.ts.
  // `logEvent: false` whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event is the bearer key.
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
