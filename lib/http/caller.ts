/** The API key behind a request, from the authorizer's context (functions/authorizer/handler.ts `AuthorizerContext`). */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The id of the API key that made the request (`keyId` of the authorizer's context), or undefined when absent. */
export function callerKeyId(event: Pick<APIGatewayProxyEvent, 'requestContext'>): string | undefined {
  const keyId = event.requestContext.authorizer?.keyId;
  return typeof keyId === 'string' && keyId !== '' ? keyId : undefined;
}

/**
 * The id that owns the caller's webhook endpoints: the first key id of its rotation chain (the authorizer's
 * `firstKeyId`), so a key made by `keys rotate` keeps the endpoints of the key it replaces; `keyId` when the
 * context has no chain (docs/contract.md "History and events").
 * @throws Error when the context carries neither: the authorizer always sets them.
 */
export function callerOwnerKeyId(event: Pick<APIGatewayProxyEvent, 'requestContext'>): string {
  const firstKeyId = event.requestContext.authorizer?.firstKeyId;
  const owner = typeof firstKeyId === 'string' && firstKeyId !== '' ? firstKeyId : callerKeyId(event);
  if (owner === undefined) throw new Error('the authorizer context names no key');
  return owner;
}
