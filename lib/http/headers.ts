/** Request headers of a proxy event, names in the client's case: local-aws/behaviour.md E4. */
import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * Every value the client sent for the header `name` (any case), in order: from `multiValueHeaders` when the
 * event has them, else the one value of `headers`. Empty when the header is absent. Only the maps' own
 * members are read: a header named `__proto__` or `constructor` is data like any other (docs/contract.md
 * "Bounded cost, clean shutdown").
 */
export function headerValues(
  event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders'>,
  name: string,
): string[] {
  const lower = name.toLowerCase();
  const values: string[] = [];
  const multi = event.multiValueHeaders ?? {};
  for (const key of Object.keys(multi)) if (key.toLowerCase() === lower) values.push(...(multi[key] ?? []));
  if (values.length > 0) return values;
  const single = event.headers ?? {};
  for (const key of Object.keys(single)) {
    const value = single[key];
    if (key.toLowerCase() === lower && value !== undefined) values.push(value);
  }
  return values;
}
