/**
 * Stand-in for `@aws-lambda-powertools/jmespath` (and its `/functions`) inside the Lambda bundles (esbuild
 * `alias` in infra/bundling.ts).
 *
 * Powertools' Idempotency utility selects the idempotency key and the validated payload with JMESPath; the
 * service's only expressions are the plain member names `key` and `order` (lib/orders/idempotency.ts). The full
 * JMESPath interpreter is 23 KB of the placeOrder bundle, which put it over the 250 KB bundle budget
 * (bench/budgets.ts). This stand-in evaluates dotted member names and throws for any other expression, so a
 * richer expression fails loudly instead of selecting the wrong data. Local runs and tests use the real package.
 */

const memberPath = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** The value at the dotted member path `expression` of `data` (null when a member is missing). */
export function search(expression: string, data: unknown): unknown {
  if (!memberPath.test(expression)) {
    throw new Error(`JMESPath expression not bundled (infra/lambda-shims/jmespath-paths.ts): ${expression}`);
  }
  let value: unknown = data;
  for (const member of expression.split('.')) {
    value =
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[member] : undefined;
  }
  return value ?? null;
}

/** Powertools' custom JMESPath functions: nothing to provide for member paths. */
export class PowertoolsFunctions {}
