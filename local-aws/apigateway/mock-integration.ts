/** A MOCK integration's response as API Gateway renders it: behaviour.md G4. */
import { render } from 'velocityjs';
import type { IntegrationModel } from '../template/api-model.ts';

/** A rendered MOCK response: status, headers and body text. */
export interface MockResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Renders `integration` for a request with `rawHeaders` (Node's flat name/value list). Header names are looked up
 * as written, first value, as the template's `$input.params().header.get(name)` does.
 */
export function renderMock(
  integration: Extract<IntegrationModel, { type: 'mock' }>,
  rawHeaders: readonly string[],
): MockResponse {
  const headerValues = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (!headerValues.has(name)) headerValues.set(name, rawHeaders[i + 1] as string);
  }
  const responseOverride: { header: Record<string, string>; status?: unknown } = { header: {} };
  const input = { params: () => ({ header: { get: (name: string) => headerValues.get(name) ?? '' } }) };
  const body = render(integration.template, { input, context: { responseOverride } });
  const status = Number(responseOverride.status);
  return {
    statusCode: Number.isInteger(status) && status >= 100 && status <= 599 ? status : integration.statusCode,
    headers: { ...integration.headers, ...responseOverride.header },
    body,
  };
}
