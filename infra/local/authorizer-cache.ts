/**
 * The local stand-in's TOKEN authorizer step, as API Gateway runs it: no `Authorization` header is 401
 * without calling the authorizer; otherwise the authorizer function decides, and an Allow is cached per
 * token for `authorizerCacheTtlSeconds` (lib/api.ts), like the deployed stage.
 */
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import { authorizerCacheTtlSeconds } from '#lib/api.ts';
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

/** Runs the authorizer for requests, caching Allow results per token. */
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
    if (!token) return { refusal: 'UNAUTHORIZED' };
    const result = await decide(token, methodArn);
    if (result === 'refused') return { refusal: 'UNAUTHORIZED' };
    if (result === 'failed') return { refusal: 'AUTHORIZER_FAILURE' };
    if (!policyAllows(result.policyDocument, methodArn)) return { refusal: 'ACCESS_DENIED' };
    const context = Object.fromEntries(Object.entries(result.context ?? {}).map(([k, v]) => [k, String(v)]));
    return { authorizer: { principalId: result.principalId, ...context } };
  };
}
