/**
 * CORS in the synthesized template (docs/operating.md "CORS"): absent with the environments' default settings (no allowed
 * origin); with allowed origins, an OPTIONS preflight (MOCK, no authorizer) on every resource of lib/api.ts
 * with the operations' methods and the request headers of lib/http/cors.ts, the CORS headers on every gateway
 * response, the origins in the operation functions' environment, cdk-nag and cfn-lint still clean. Stacks are
 * synthesized from modified settings without bundling (the template does not depend on the bundles).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type GatewayResponseType,
  gatewayResponseHeaders,
  gatewayResponses,
} from '#infra/gateway-responses.ts';
import { functionLogicalId, InventoryStack } from '#infra/inventory-stack.ts';
import { type EnvironmentName, type EnvironmentSettings, environments } from '#infra/settings.ts';
import { authorizer, eventFunctions, operations } from '#lib/api.ts';
import { corsOriginsEnv } from '#lib/http/cors.ts';
import { itWithCfnLint } from '#test/support/cfn-lint.ts';
import { type CfnResourceJson, getAtt, ref, resource, resourcesOfType, type TemplateJson } from './synth.ts';

/** The response type's own headers besides CORS (`Retry-After` on the 429s), as a gateway response renders them. */
const ownHeaders = (response: CfnResourceJson) =>
  Object.fromEntries(
    Object.entries(gatewayResponseHeaders[response.Properties.ResponseType as GatewayResponseType] ?? {}).map(
      ([name, value]) => [`gatewayresponse.header.${name}`, `'${value}'`],
    ),
  );

const backOffice = 'https://backoffice.example.com';
const localBackOffice = 'http://localhost:5173';

/** One environment's stack synthesized with `corsAllowedOrigins` replaced, without bundling the functions. */
function synthesizeWith(name: EnvironmentName, corsAllowedOrigins: readonly string[]) {
  const settings: EnvironmentSettings = { ...environments[name], corsAllowedOrigins };
  const app = new App({ analyticsReporting: false, context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new InventoryStack(app, `Cors-${name}`, { settings });
  const json = app.synth().getStackByName(stack.stackName).template as TemplateJson;
  return { stack, json };
}

/** The path of an `AWS::ApiGateway::Resource` from its PathPart and ParentId chain ('' for the root). */
function pathOf(json: TemplateJson, resourceId: unknown): string {
  const logicalId = (resourceId as { Ref?: string }).Ref;
  if (!logicalId) return '';
  const { Properties } = resource(json, logicalId);
  return `${pathOf(json, Properties.ParentId)}/${Properties.PathPart}`;
}

/** The OPTIONS methods by resource path. */
function preflights(json: TemplateJson): Record<string, CfnResourceJson> {
  return Object.fromEntries(
    Object.values(resourcesOfType(json, 'AWS::ApiGateway::Method'))
      .filter((method) => method.Properties.HttpMethod === 'OPTIONS')
      .map((method) => [pathOf(json, method.Properties.ResourceId), method]),
  );
}

/** The methods of lib/api.ts per path. */
const methodsByPath = new Map<string, string[]>();
for (const { path, method } of operations)
  methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);

const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

describe.each(Object.keys(environments) as EnvironmentName[])('%s with its own settings', (name) => {
  it('allows no origin, so the template has no OPTIONS method, no CORS header and no CORS variable', () => {
    expect(environments[name].corsAllowedOrigins).toEqual([]);
    const { json } = synthesizeWith(name, environments[name].corsAllowedOrigins);
    expect(preflights(json)).toEqual({});
    expect(JSON.stringify(json)).not.toMatch(/Access-Control|CORS_ALLOWED_ORIGINS/);
  });
});

describe('one allowed origin', () => {
  const { stack, json } = synthesizeWith('production', [backOffice]);

  it('answers the preflight on every resource of lib/api.ts: MOCK, no authorizer, 204 with the CORS headers', () => {
    expect(Object.keys(preflights(json)).sort()).toEqual([...methodsByPath.keys()].sort());
    for (const [path, methods] of methodsByPath) {
      const { Properties } = preflights(json)[path] as CfnResourceJson;
      const headers = {
        'method.response.header.Access-Control-Allow-Headers':
          "'Authorization,Content-Type,If-Match,Idempotency-Key'",
        'method.response.header.Access-Control-Allow-Origin': `'${backOffice}'`,
        'method.response.header.Vary': "'Origin'",
        'method.response.header.Access-Control-Allow-Methods': `'${methods.join(',')}'`,
        'method.response.header.Access-Control-Max-Age': "'600'",
      };
      expect(Properties.AuthorizationType, path).toBe('NONE');
      expect(Properties.AuthorizerId, path).toBeUndefined();
      expect(Properties.Integration, path).toEqual({
        Type: 'MOCK',
        RequestTemplates: { 'application/json': '{ statusCode: 200 }' },
        IntegrationResponses: [{ StatusCode: '204', ResponseParameters: headers }],
      });
      expect(Properties.MethodResponses, path).toEqual([
        {
          StatusCode: '204',
          ResponseParameters: Object.fromEntries(Object.keys(headers).map((h) => [h, true])),
        },
      ]);
    }
  });

  it('keeps the authorizer on every other method', () => {
    const others = Object.values(resourcesOfType(json, 'AWS::ApiGateway::Method')).filter(
      (method) => method.Properties.HttpMethod !== 'OPTIONS',
    );
    expect(others).toHaveLength(operations.length);
    for (const method of others) expect(method.Properties.AuthorizationType).toBe('CUSTOM');
  });

  it('puts the origin and Vary: Origin on every gateway response', () => {
    const rendered = Object.values(resourcesOfType(json, 'AWS::ApiGateway::GatewayResponse'));
    expect(rendered).toHaveLength(Object.keys(gatewayResponses).length);
    for (const response of rendered) {
      expect(response.Properties.ResponseParameters, String(response.Properties.ResponseType)).toEqual({
        'gatewayresponse.header.Content-Type': "'application/json'",
        'gatewayresponse.header.Access-Control-Allow-Origin': `'${backOffice}'`,
        'gatewayresponse.header.Vary': "'Origin'",
        ...ownHeaders(response),
      });
    }
  });

  it('gives the operation functions the origins, and not the authorizer nor the event functions', () => {
    for (const operation of operations) {
      const variables = (
        resource(json, functionLogicalId(operation)).Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      expect(variables[corsOriginsEnv]).toBe(backOffice);
    }
    const authorizerVariables = (
      resource(json, functionLogicalId(authorizer)).Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(authorizerVariables[corsOriginsEnv]).toBeUndefined();
    for (const definition of Object.values(eventFunctions)) {
      const variables = (
        resource(json, functionLogicalId(definition)).Properties.Environment as {
          Variables: Record<string, unknown>;
        }
      ).Variables;
      expect(variables[corsOriginsEnv], definition.name).toBeUndefined();
    }
  });

  it('has no unacknowledged cdk-nag finding; the preflights acknowledge exactly APIG4 and COG4', () => {
    const report = new AwsSolutionsChecks().validateScope(stack);
    expect(report.violations.map((v) => `${v.ruleName}: ${v.description}`)).toEqual([]);
    const acknowledged = stack.node
      .findAll()
      .filter((c) => c.node.path.endsWith('/OPTIONS'))
      .flatMap((c) =>
        c.node.metadata
          .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
          .flatMap((entry) => Object.keys(entry.data as Record<string, string>)),
      );
    expect(acknowledged.map((id) => id.replace(/^annotation::/i, '')).sort()).toEqual(
      [...methodsByPath.keys()].flatMap(() => ['AwsSolutions-APIG4', 'AwsSolutions-COG4']).sort(),
    );
  });

  itWithCfnLint('passes cfn-lint', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cors-template-'));
    temporary.push(dir);
    const path = join(dir, 'template.json');
    writeFileSync(path, JSON.stringify(json));
    return [path];
  });
});

describe('several allowed origins', () => {
  const { json } = synthesizeWith('staging', [backOffice, localBackOffice]);

  it('answers the preflight with the first origin, or the request Origin when it is another allowed one', () => {
    for (const path of methodsByPath.keys()) {
      const [response] = (
        (preflights(json)[path] as CfnResourceJson).Properties.Integration as {
          IntegrationResponses: {
            ResponseParameters: Record<string, string>;
            ResponseTemplates: Record<string, string>;
          }[];
        }
      ).IntegrationResponses;
      expect(response?.ResponseParameters['method.response.header.Access-Control-Allow-Origin']).toBe(
        `'${backOffice}'`,
      );
      expect(response?.ResponseTemplates['application/json']).toBe(
        [
          '#set($origin = $input.params().header.get("Origin"))',
          '#if($origin == "")',
          '  #set($origin = $input.params().header.get("origin"))',
          '#end',
          `#if($origin == "${localBackOffice}")`,
          '  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)',
          '#end',
        ].join('\n'),
      );
    }
  });

  it("echoes the request's Origin on every gateway response (a gateway response cannot choose among values)", () => {
    for (const response of Object.values(resourcesOfType(json, 'AWS::ApiGateway::GatewayResponse'))) {
      expect(response.Properties.ResponseParameters).toEqual({
        'gatewayresponse.header.Content-Type': "'application/json'",
        'gatewayresponse.header.Access-Control-Allow-Origin': 'method.request.header.Origin',
        'gatewayresponse.header.Vary': "'Origin'",
        ...ownHeaders(response),
      });
    }
  });

  it('gives the operation functions every origin, comma-separated', () => {
    const variables = (
      resource(json, functionLogicalId(operations[0] as (typeof operations)[0])).Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables[corsOriginsEnv]).toBe(`${backOffice},${localBackOffice}`);
  });

  it('still invokes the aliases from the API', () => {
    expect(JSON.stringify(json)).toContain(JSON.stringify(ref(`${functionLogicalId(authorizer)}Alias`)));
    expect(JSON.stringify(json)).not.toContain(JSON.stringify(getAtt(functionLogicalId(authorizer), 'Arn')));
  });
});

describe('origins that are not origins', () => {
  it.each([
    '*',
    'https://*.example.com',
    'https://backoffice.example.com/',
    'https://backoffice.example.com/app',
    'HTTPS://BACKOFFICE.EXAMPLE.COM',
    'backoffice.example.com',
    'ftp://backoffice.example.com',
    'https://a.example.com,https://b.example.com',
    '',
  ])('refuses %j at synthesis', (origin) => {
    expect(() => synthesizeWith('staging', [origin])).toThrow(
      `CORS origin ${JSON.stringify(origin)} is not an origin such as https://backoffice.example.com`,
    );
  });
});
