/**
 * A stand-in TOKEN authorizer whose token picks the outcome (behaviour.md "The TOKEN authorizer"): every token
 * (without `Bearer `) is appended to the file `BEHAVIOUR_CALLS`; `unauthorized` throws `Unauthorized`, `throws`
 * throws another error, `malformed` returns no policy, `slow…` answers after 40 s, `deny…` is a Deny and any
 * other token an Allow, both of the whole stage with `principalId` `someone`, usage identifier `key-1` and a
 * context of a string, a number and a boolean.
 */
import { appendFileSync } from 'node:fs';
import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';

/** The Lambda handler (`index.handler`). @throws Error('Unauthorized') for `unauthorized`, Error for `throws` */
export async function handler(event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const token = event.authorizationToken.replace(/^Bearer /, '');
  appendFileSync(process.env.BEHAVIOUR_CALLS as string, `${token}\n`);
  if (token === 'unauthorized') throw new Error('Unauthorized');
  if (token === 'throws') throw new Error('the key store is unreachable');
  if (token === 'malformed') return { principalId: 'someone' } as APIGatewayAuthorizerResult;
  if (token.startsWith('slow')) await new Promise((resolve) => setTimeout(resolve, 40_000));
  // The whole stage, as a bearer authorizer commonly does: a cached policy then serves every route.
  const effect = token.startsWith('deny') ? 'Deny' : 'Allow';
  return {
    principalId: 'someone',
    usageIdentifierKey: 'key-1',
    context: { plan: 'basic', limit: 5, active: true },
    policyDocument: {
      Version: '2012-10-17',
      Statement: [
        {
          Action: 'execute-api:Invoke',
          Effect: effect,
          Resource: [`${event.methodArn.split('/').slice(0, 2).join('/')}/*`],
        },
      ],
    },
  };
}
