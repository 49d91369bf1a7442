/** Bundle stand-in for Powertools' JMESPath, dotted member names only: docs/architecture.md "Bundles". */

const memberPath = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** The value at the dotted member path `expression` of `data` (null when a member is missing). */
export function search(expression: string, data: unknown): unknown {
  if (!memberPath.test(expression)) {
    throw new Error(`JMESPath expression not bundled (lib/bundle-shims/jmespath-paths.ts): ${expression}`);
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
