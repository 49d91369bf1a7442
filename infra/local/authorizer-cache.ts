/**
 * The local stand-in's TOKEN authorizer step, as API Gateway runs it (docs/api-gateway-behaviour.md): no
 * `Authorization` header, or one that fails the validation expression, is 401 UNAUTHORIZED without calling the
 * authorizer; otherwise the authorizer function decides and its policy (Allow or Deny) is cached per token for
 * `authorizerCacheTtlSeconds` (lib/api.ts), like the deployed stage. A Deny is ACCESS_DENIED; a thrown
 * `Unauthorized` is UNAUTHORIZED; any other thrown error is AUTHORIZER_CONFIGURATION_ERROR, and is not cached.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { authorizerCacheTtlSeconds } from '#lib/api.ts';
import { bearerHeaderPattern } from '#lib/auth/authorize.ts';
import type { GatewayResponseType } from '../gateway-responses.ts';
import { lambdaContext } from './lambda-context.ts';

/** An authorizer handler module's `handler`. */
export type AuthorizerHandler = (
  event: APIGatewayTokenAuthorizerEvent,
  context: Context,
) => Promise<APIGatewayAuthorizerResult>;

/** The outcome: the `requestContext.authorizer` of the proxy event, or the gateway response to send. */
export type AuthorizerOutcome = { authorizer: Record<string, string> } | { refusal: GatewayResponseType };

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** True when the IAM policy allows `execute-api:Invoke` on `methodArn` and denies nothing of it. */
function policyAllows(policy: APIGatewayAuthorizerResult['policyDocument'], methodArn: string): boolean {
  const matches = (statement: (typeof policy.Statement)[number]) => {
    const resources = ('Resource' in statement ? [statement.Resource].flat() : []) as string[];
    return resources.some((resource) =>
      new RegExp(`^${escapeRegExp(resource).replace(/\*/g, '.*')}$`).test(methodArn),
    );
  };
  const statements = policy.Statement.filter(matches);
  return statements.some((s) => s.Effect === 'Allow') && !statements.some((s) => s.Effect === 'Deny');
}

/** The stack's validation expression on the `Authorization` value (infra/inventory-api.ts). */
const validationExpression = new RegExp(bearerHeaderPattern);

/** Runs the authorizer for requests, caching its policies per token. */
export function authorizerStep(handler: AuthorizerHandler) {
  const cache = new Map<string, { expires: number; result: APIGatewayAuthorizerResult }>();

  async function decide(
    token: string,
    methodArn: string,
  ): Promise<APIGatewayAuthorizerResult | 'refused' | 'failed'> {
    const cached = cache.get(token);
    if (cached && cached.expires > Date.now()) return cached.result;
    try {
      const result = await handler(
        { type: 'TOKEN', authorizationToken: token, methodArn },
        lambdaContext('authorizer'),
      );
      cache.set(token, { expires: Date.now() + authorizerCacheTtlSeconds * 1000, result });
      return result;
    } catch (error) {
      return (error as Error)?.message === 'Unauthorized' ? 'refused' : 'failed';
    }
  }

  /** Decides one request: `token` is the `Authorization` header value, `methodArn` the method's ARN. */
  return async (token: string | undefined, methodArn: string): Promise<AuthorizerOutcome> => {
    if (!token || !validationExpression.test(token)) return { refusal: 'UNAUTHORIZED' };
    const result = await decide(token, methodArn);
    if (result === 'refused') return { refusal: 'UNAUTHORIZED' };
    if (result === 'failed') return { refusal: 'AUTHORIZER_CONFIGURATION_ERROR' };
    if (!policyAllows(result.policyDocument, methodArn)) return { refusal: 'ACCESS_DENIED' };
    const context = Object.fromEntries(Object.entries(result.context ?? {}).map(([k, v]) => [k, String(v)]));
    return { authorizer: { principalId: result.principalId, ...context } };
  };
}
