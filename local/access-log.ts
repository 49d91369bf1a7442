/**
 * The local API's access log: one INFO line per request, through the functions' logger (lib/logger.ts, so
 * `POWERTOOLS_LOG_LEVEL` quiets it too), with API Gateway's `$context` names
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-variables-for-access-logging.html):
 * `httpMethod`, `resourcePath`, `status`, `responseLatency` (ms), `requestId`, and `principalId` the key's name
 * from the authorizer's context (`keyName`, else `keyId`; `-` when no key was accepted): never the key itself,
 * no header (docs/operating.md "Access logs").
 */
import type { AccessLogContext } from 'local-aws';
import { logger } from '#lib/logger.ts';

/** Writes `context`'s access log line. */
export function logAccess(context: AccessLogContext): void {
  const { authorizer } = context;
  logger.info('access', {
    requestId: context.requestId,
    httpMethod: context.httpMethod,
    resourcePath: context.resourcePath,
    status: context.status,
    responseLatency: context.responseLatency,
    principalId: String(authorizer?.keyName ?? authorizer?.keyId ?? '-'),
  });
}
