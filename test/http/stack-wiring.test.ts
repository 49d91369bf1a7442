/**
 * The HTTP suites prove the stack's wiring, not only the code (docs/architecture.md "One table, three
 * renderings"):
 * four mistakes made in a copy of this run's synthesized staging template, each served by the local API, and
 * the contract answer each one breaks; and a gateway response's template is what the local API sends.
 */

import type { Template } from 'local-aws';
import { describe, expect, test } from 'vitest';
import { assemblyDir, servedStagingStack } from '#test/support/synthesized-assembly.ts';
import { startTestApi } from '#test/support/test-api.ts';

type Properties = Record<string, unknown>;

/** A copy of the staging template with `mistake` made in it. */
async function brokenTemplate(mistake: (template: Template) => void): Promise<Template> {
  const template = structuredClone((await servedStagingStack()).template);
  mistake(template);
  return template;
}

/** The properties of the resource of `type` whose JSON mentions `needle`. */
function resourceMentioning(template: Template, type: string, needle: string): Properties {
  const found = Object.values(template.Resources).find(
    (resource) => resource.Type === type && JSON.stringify(resource.Properties).includes(needle),
  );
  if (!found) throw new Error(`no ${type} mentions ${needle}`);
  return found.Properties as Properties;
}

/** GET /inventory on the broken stack, without and with the key. */
async function listOn(template: Template) {
  const api = await startTestApi({ stack: { assemblyDir: assemblyDir(), template, sources: false } });
  try {
    await api.inventory.putMany([{ petId: '7', quantity: 3, status: 'available' }]);
    const anonymous = await api.request('GET', '/inventory');
    const keyed = await api.list();
    return { anonymous: anonymous.status, keyed: keyed.status, keyedText: keyed.text };
  } finally {
    await api.close();
  }
}

describe('a wiring mistake in the stack fails the contract suites', () => {
  test('the intact stack: 401 without a key, the list with it', async () => {
    const outcome = await listOn(await brokenTemplate(() => {}));
    expect(outcome).toEqual({
      anonymous: 401,
      keyed: 200,
      keyedText: '[{"petId":7,"quantity":3,"status":"available"}]',
    });
  });

  test('a method without the authorizer: the function, given no scopes, answers 403 (contract: 401)', async () => {
    const outcome = await listOn(
      await brokenTemplate((template) => {
        const method = resourceMentioning(template, 'AWS::ApiGateway::Method', 'ListInventoryFunction');
        method.AuthorizationType = 'NONE';
        delete method.AuthorizerId;
        method.ApiKeyRequired = false;
      }),
    );
    expect(outcome.anonymous).toBe(403);
  });

  test('a wrong gateway-response status changes the refusal (contract: 401)', async () => {
    const outcome = await listOn(
      await brokenTemplate((template) => {
        resourceMentioning(template, 'AWS::ApiGateway::GatewayResponse', '"UNAUTHORIZED"').StatusCode = '403';
      }),
    );
    expect(outcome.anonymous).toBe(403);
  });

  test('a function missing its table variable fails the list (contract: 200)', async () => {
    const outcome = await listOn(
      await brokenTemplate((template) => {
        const fn = template.Resources.ListInventoryFunction?.Properties as Properties;
        delete (fn.Environment as { Variables: Properties }).Variables.INVENTORY_TABLE_NAME;
      }),
    );
    expect(outcome.keyed).toBe(500);
  });

  test('a wrong handler name fails the list (contract: 200)', async () => {
    const outcome = await listOn(
      await brokenTemplate((template) => {
        (template.Resources.ListInventoryFunction?.Properties as Properties).Handler = 'index.handlr';
      }),
    );
    expect(outcome.keyed).toBe(500);
  });

  test('a gateway response template is Velocity with $context, rendered as API Gateway does', async () => {
    const template = await brokenTemplate((template) => {
      const response = resourceMentioning(template, 'AWS::ApiGateway::GatewayResponse', '"UNAUTHORIZED"');
      response.ResponseTemplates = {
        'application/json':
          '#set($code = "unauthorized"){"code":"$code","type":"$context.error.responseType",' +
          '"message":$context.error.messageString,"requestId":"$context.requestId"}',
      };
    });
    const api = await startTestApi({ stack: { assemblyDir: assemblyDir(), template, sources: false } });
    try {
      const response = await api.request('GET', '/inventory');
      expect(response.status).toBe(401);
      expect(response.text).toBe(
        `{"code":"unauthorized","type":"UNAUTHORIZED","message":"Unauthorized","requestId":"${response.headers.get('x-amzn-RequestId')}"}`,
      );
    } finally {
      await api.close();
    }
  });
});
