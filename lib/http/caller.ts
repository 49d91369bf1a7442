/** The API key behind a request, from the authorizer's context (functions/authorizer/handler.ts `AuthorizerContext`). */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The id of the API key that made the request (`keyId` of the authorizer's context), or undefined when absent. */
export function callerKeyId(event: Pick<APIGatewayProxyEvent, 'requestContext'>): string | undefined {
  const keyId = event.requestContext.authorizer?.keyId;
  return typeof keyId === 'string' && keyId !== '' ? keyId : undefined;
}
