/**
 * The bearer authorizer: an API Gateway TOKEN authorizer on the `Authorization` header (spec §5).
 *
 * Event: `APIGatewayTokenAuthorizerEvent` (`authorizationToken`, `methodArn`).
 * Allowed: returns an IAM policy allowing `execute-api:Invoke` on every method of the calling API's stage (so
 * one cached result serves every route) with the key's name as `principalId` and in `context.keyName`.
 * Refused (missing, malformed, unknown, revoked or expired key): throws `Error('Unauthorized')`, the one
 * message API Gateway turns into 401 (a Deny policy would give 403).
 * DynamoDB failure: throws that error; API Gateway answers with the AUTHORIZER_FAILURE gateway response (503).
 * Environment: `API_KEYS_TABLE_NAME`.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { tables } from '#lib/api.ts';
import { authorize } from '#lib/auth/authorize.ts';
import { keyStore } from '#lib/auth/key-store.ts';
import { documentClient } from '#lib/clients/dynamodb.ts';
import { requiredEnv } from '#lib/env.ts';
import { logger } from '#lib/logger.ts';

const keys = keyStore(documentClient, requiredEnv(tables.apiKeys.env));

/** `arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/*` from a method ARN `.../{stage}/{method}/{path}`. */
function stageArn(methodArn: string): string {
  const [apiArn, stage] = methodArn.split('/');
  return `${apiArn}/${stage}/*`;
}

/** The Lambda handler. */
export const handler = middy<APIGatewayTokenAuthorizerEvent, APIGatewayAuthorizerResult>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const principal = await authorize(event.authorizationToken, keys, new Date());
    if (!principal) {
      logger.info('request refused');
      throw new Error('Unauthorized');
    }
    return {
      principalId: principal.keyName,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: stageArn(event.methodArn) }],
      },
      context: { keyName: principal.keyName },
    };
  });
