/** A TOKEN authorizer as API Gateway REST runs it: behaviour.md A1-A10. */
import { LRUCache, type Perf } from 'lru-cache';
import { type LambdaFunction, TooLateToStart } from '../lambda/lambda-runtime.ts';
import type { AuthorizerModel } from '../template/api-model.ts';
import type { GatewayErrorKind } from './gateway-response-render.ts';
import { lastHeaderValue } from './proxy-event.ts';

/**
 * The outcome: the `requestContext.authorizer` of the proxy event and the usage identifier the authorizer
 * returned (`usageIdentifierKey`, absent when it returned none), or the gateway response to send.
 */
export type AuthorizerOutcome =
  | { authorizer: Record<string, string | number>; usageIdentifier?: string }
  | { refusal: GatewayErrorKind };

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: string[];
}

/** A valid authorizer result: the policy's statements, the principal, the usage identifier and the context. */
interface Decision {
  principalId: string;
  usageIdentifier?: string;
  statements: Statement[];
  context: Record<string, string>;
}

/** `*` and `?` of an IAM resource or action pattern, as a regular expression. */
function wildcard(pattern: string): RegExp {
  const escaped = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

const list = (value: unknown) => (Array.isArray(value) ? value : [value]);

/** The decision of a result, or undefined when API Gateway would refuse it as malformed. */
function decision(payload: string): Decision | undefined {
  let result: Record<string, unknown>;
  try {
    result = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (result === null || typeof result !== 'object') return undefined;
  const policy = result.policyDocument as Record<string, unknown> | undefined;
  if (typeof result.principalId !== 'string' || !policy || !Array.isArray(policy.Statement)) return undefined;
  const statements: Statement[] = [];
  for (const raw of policy.Statement as Record<string, unknown>[]) {
    if (raw?.Effect !== 'Allow' && raw?.Effect !== 'Deny') return undefined;
    const actions = list(raw.Action);
    const resources = list(raw.Resource);
    if (![...actions, ...resources].every((item) => typeof item === 'string')) return undefined;
    statements.push({ Effect: raw.Effect, Action: actions, Resource: resources });
  }
  const context: Record<string, string> = {};
  for (const [name, value] of Object.entries((result.context ?? {}) as Record<string, unknown>)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) return undefined;
    context[name] = String(value);
  }
  const usageIdentifier =
    typeof result.usageIdentifierKey === 'string' && result.usageIdentifierKey !== ''
      ? { usageIdentifier: result.usageIdentifierKey }
      : {};
  return { principalId: result.principalId, ...usageIdentifier, statements, context };
}

/** True when `statement` covers invoking `methodArn`. */
function covers(statement: Statement, methodArn: string): boolean {
  return (
    statement.Action.some((action) => wildcard(action.toLowerCase()).test('execute-api:invoke')) &&
    statement.Resource.some((resource) => wildcard(resource).test(methodArn))
  );
}

/**
 * Most tokens whose result the cache holds at once; past it the least recently used is evicted
 * (behaviour.md A10: the bound and its reasoning).
 */
export const authorizerCacheEntries = 1_000;

/**
 * Runs `authorizer` (its function `fn`) for requests, caching each token's valid result for its TTL, at most
 * {@link authorizerCacheEntries} tokens, the TTL measured on `clock` (milliseconds; a test passes its own).
 */
export function authorizerStep(authorizer: AuthorizerModel, fn: LambdaFunction, clock: Perf = performance) {
  const cache =
    authorizer.ttlSeconds > 0
      ? new LRUCache<string, Decision>({
          max: authorizerCacheEntries,
          ttl: authorizer.ttlSeconds * 1000,
          // Every read asks the clock (the library's default reuses a reading for 1 ms of real time).
          ttlResolution: 0,
          perf: clock,
        })
      : undefined;
  const validation = authorizer.validationExpression
    ? new RegExp(`^(?:${authorizer.validationExpression})$`)
    : undefined;

  async function decide(token: string, methodArn: string): Promise<Decision | GatewayErrorKind> {
    const cached = cache?.get(token);
    if (cached) return cached;
    const outcome = await fn
      .invoke({ type: 'TOKEN', authorizationToken: token, methodArn })
      .catch((error: unknown) => {
        // A shutdown's drain that the authorizer could not finish before: refused as a failure (503), unrun.
        if (error instanceof TooLateToStart) return undefined;
        throw error;
      });
    if (!outcome) return 'AUTHORIZER_FAILURE';
    if (outcome.type === 'error') {
      return outcome.errorMessage === 'Unauthorized' ? 'UNAUTHORIZED' : 'AUTHORIZER_CONFIGURATION_ERROR';
    }
    const decided = outcome.type === 'result' ? decision(outcome.payload) : undefined;
    if (!decided) return 'AUTHORIZER_CONFIGURATION_ERROR';
    cache?.set(token, decided);
    return decided;
  }

  /**
   * Decides one request from its raw header lines (`IncomingMessage.rawHeaders`: the identity header's last
   * value, as the event's `headers` holds it; behaviour.md E5) and its method ARN.
   */
  return async (rawHeaders: readonly string[], methodArn: string): Promise<AuthorizerOutcome> => {
    const token = lastHeaderValue(rawHeaders, authorizer.identityHeader);
    if (!token || (validation && !validation.test(token))) return { refusal: 'UNAUTHORIZED' };
    const started = Date.now();
    const decided = await decide(token, methodArn);
    if (typeof decided === 'string') return { refusal: decided };
    const applies = decided.statements.filter((statement) => covers(statement, methodArn));
    if (applies.some((s) => s.Effect === 'Deny') || !applies.some((s) => s.Effect === 'Allow')) {
      return { refusal: 'ACCESS_DENIED' };
    }
    return {
      authorizer: {
        principalId: decided.principalId,
        ...decided.context,
        integrationLatency: Date.now() - started,
      },
      ...(decided.usageIdentifier ? { usageIdentifier: decided.usageIdentifier } : {}),
    };
  };
}
