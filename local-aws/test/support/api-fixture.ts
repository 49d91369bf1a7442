/**
 * A fixture REST API of the package's own, in the shape `cdk synth` gives it (behaviour.md "Routing", "Request
 * as the function receives it", "The TOKEN authorizer", "Responses API Gateway writes"): an
 * `AWS::ApiGateway::RestApi` with its resources and methods (Lambda proxy integrations), a TOKEN authorizer,
 * gateway responses, a deployment and its stage `v1`, and the `AWS::Lambda::Function`s, served by
 * {@link startLocalAws}. Two stand-in functions are always there: `Echo` (testing/functions/echo-event.ts,
 * answers with the event it received) and `Authorizer` (testing/functions/behaviour-authorizer.ts, the token
 * picks the outcome); a suite adds its own routes, functions and gateway responses.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inMemory } from '../../dynamodb/dynamodb.ts';
import { type ServedTemplate, startLocalAws } from '../../serve.ts';
import type { Template } from '../../template/api-model.ts';
import { temporaryDir } from '../../testing/temporary-dirs.ts';

/** The module (absolute path) of a stand-in function under testing/functions/. */
export const standIn = (name: string): string =>
  fileURLToPath(new URL(`../../testing/functions/${name}.ts`, import.meta.url));

/** A function of the fixture: its module's `handler` export runs (`Handler: index.handler`). */
export interface FixtureFunction {
  /** Absolute path of the module. */
  module: string;
  /** `Timeout` in seconds (Lambda's default 3 when absent). */
  timeoutSeconds?: number;
  /** `MemorySize` in MB (Lambda's default 128 when absent). */
  memoryMb?: number;
  /** `Environment.Variables`. */
  environment?: Record<string, string>;
}

/** A method of the fixture API. */
export interface FixtureRoute {
  /** `GET`, `POST`, ... or `ANY`. */
  method: string;
  /** The resource path: `/items/{itemId}`; `/` for the root. */
  path: string;
  /** The logical id of the function its Lambda proxy integration invokes (default `Echo`). */
  function?: string;
  /** Behind the TOKEN authorizer (`AuthorizationType: CUSTOM`); default false (`NONE`). */
  authorized?: boolean;
  /** `ResponseTransferMode: STREAM` on the integration. */
  streaming?: boolean;
  /** `ApiKeyRequired` (an authorized route; the API then needs {@link ApiFixtureOptions.usagePlan}). */
  apiKeyRequired?: boolean;
  /** A MOCK integration instead of the Lambda proxy one (its `function` is then ignored). */
  mock?: FixtureMock;
}

/** A MOCK integration's one integration response. */
export interface FixtureMock {
  statusCode: number;
  /** Static headers (`method.response.header.X: "'value'"`). */
  headers?: Record<string, string>;
  /** The `application/json` response template (Velocity). */
  template: string;
}

/** A throttle: requests per second and burst. */
export interface FixtureThrottle {
  rateLimit: number;
  burstLimit: number;
}

/** A gateway response (`AWS::ApiGateway::GatewayResponse`) of the fixture. */
export interface FixtureGatewayResponse {
  statusCode?: number;
  /** Static response headers (`gatewayresponse.header.X: "'value'"`). */
  headers?: Record<string, string>;
  /** Response headers copied from the request (`gatewayresponse.header.X: method.request.header.Y`): X -> Y. */
  requestHeaders?: Record<string, string>;
  /** The `application/json` response template (Velocity). */
  template?: string;
}

/** What the fixture API holds besides its two stand-ins. */
export interface ApiFixtureOptions {
  routes: FixtureRoute[];
  /** More functions, by logical id (`Echo` and `Authorizer` are always there; one of those ids replaces it). */
  functions?: Record<string, FixtureFunction>;
  /** Gateway responses, by `ResponseType` (`UNAUTHORIZED`, `DEFAULT_4XX`, ...). */
  gatewayResponses?: Record<string, FixtureGatewayResponse>;
  /** The TOKEN authorizer's `IdentityValidationExpression` (default {@link bearerValidation}; null: none). */
  validationExpression?: string | null;
  /** `AuthorizerResultTtlInSeconds` (default 300, API Gateway's). */
  authorizerTtlSeconds?: number;
  /** The `Throttle` of an `AWS::ApiGateway::UsagePlan` of the API's keys (none when absent). */
  usagePlan?: FixtureThrottle;
  /** The stage's own throttle, `MethodSettings` of every method (none when absent). */
  stageThrottle?: FixtureThrottle;
  /** The authorizer function's `Timeout` in seconds (default 2). */
  authorizerTimeoutSeconds?: number;
}

/** The fixture authorizer's default `IdentityValidationExpression`: `Bearer <token68>` (RFC 6750 section 2.1). */
export const bearerValidation = '^Bearer [A-Za-z0-9._~+/-]+=*$';

/** The stage of the fixture API. */
export const stageName = 'v1';

/**
 * The fixture's template: every route's resources (one `AWS::ApiGateway::Resource` per path segment, shared by
 * routes under it), its methods, the authorizer, the gateway responses, a deployment and the stage, and the
 * functions, each with `Handler: index.handler`.
 */
export function apiTemplate(
  options: ApiFixtureOptions,
  functions: Record<string, FixtureFunction>,
): Template {
  const resources: Template['Resources'] = {
    Api: { Type: 'AWS::ApiGateway::RestApi', Properties: { Name: 'fixture' } },
  };
  const resourceIds = new Map<string, string>();
  const resourceOf = (path: string): unknown => {
    const segments = path.split('/').filter(Boolean);
    let parent: unknown = { 'Fn::GetAtt': ['Api', 'RootResourceId'] };
    let prefix = '';
    for (const segment of segments) {
      prefix += `/${segment}`;
      let id = resourceIds.get(prefix);
      if (!id) {
        id = `ApiResource${resourceIds.size + 1}`;
        resourceIds.set(prefix, id);
        resources[id] = {
          Type: 'AWS::ApiGateway::Resource',
          Properties: { ParentId: parent, PathPart: segment, RestApiId: { Ref: 'Api' } },
        };
      }
      parent = { Ref: id };
    }
    return parent;
  };
  options.routes.forEach((route, index) => {
    resources[`ApiMethod${index + 1}`] = {
      Type: 'AWS::ApiGateway::Method',
      Properties: {
        HttpMethod: route.method,
        ResourceId: resourceOf(route.path),
        RestApiId: { Ref: 'Api' },
        AuthorizationType: route.authorized ? 'CUSTOM' : 'NONE',
        ...(route.authorized ? { AuthorizerId: { Ref: 'ApiAuthorizer' } } : {}),
        ...(route.apiKeyRequired ? { ApiKeyRequired: true } : {}),
        Integration: route.mock
          ? mockIntegration(route.mock)
          : {
              Type: 'AWS_PROXY',
              IntegrationHttpMethod: 'POST',
              ...(route.streaming ? { ResponseTransferMode: 'STREAM' } : {}),
              Uri: {
                'Fn::Join': [
                  '',
                  [
                    'arn:',
                    { Ref: 'AWS::Partition' },
                    ':apigateway:',
                    { Ref: 'AWS::Region' },
                    ':lambda:path/2015-03-31/functions/',
                    { 'Fn::GetAtt': [route.function ?? 'Echo', 'Arn'] },
                    '/invocations',
                  ],
                ],
              },
            },
      },
    };
  });
  const validation =
    options.validationExpression === undefined ? bearerValidation : options.validationExpression;
  resources.ApiAuthorizer = {
    Type: 'AWS::ApiGateway::Authorizer',
    Properties: {
      Name: 'token',
      RestApiId: { Ref: 'Api' },
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      ...(validation === null ? {} : { IdentityValidationExpression: validation }),
      AuthorizerResultTtlInSeconds: options.authorizerTtlSeconds ?? 300,
      AuthorizerUri: {
        'Fn::Join': [
          '',
          [
            'arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/',
            { 'Fn::GetAtt': ['Authorizer', 'Arn'] },
            '/invocations',
          ],
        ],
      },
    },
  };
  for (const [type, response] of Object.entries(options.gatewayResponses ?? {})) {
    resources[`ApiResponse${type.replaceAll('_', '')}`] = {
      Type: 'AWS::ApiGateway::GatewayResponse',
      Properties: {
        RestApiId: { Ref: 'Api' },
        ResponseType: type,
        ...(response.statusCode === undefined ? {} : { StatusCode: String(response.statusCode) }),
        ResponseParameters: {
          ...Object.fromEntries(
            Object.entries(response.headers ?? {}).map(([name, value]) => [
              `gatewayresponse.header.${name}`,
              `'${value}'`,
            ]),
          ),
          ...Object.fromEntries(
            Object.entries(response.requestHeaders ?? {}).map(([name, source]) => [
              `gatewayresponse.header.${name}`,
              `method.request.header.${source}`,
            ]),
          ),
        },
        ...(response.template === undefined
          ? {}
          : { ResponseTemplates: { 'application/json': response.template } }),
      },
    };
  }
  resources.ApiDeployment = {
    Type: 'AWS::ApiGateway::Deployment',
    Properties: { RestApiId: { Ref: 'Api' } },
  };
  const { stageThrottle, usagePlan } = options;
  resources.ApiStage = {
    Type: 'AWS::ApiGateway::Stage',
    Properties: {
      RestApiId: { Ref: 'Api' },
      DeploymentId: { Ref: 'ApiDeployment' },
      StageName: stageName,
      ...(stageThrottle
        ? {
            MethodSettings: [
              {
                ResourcePath: '/*',
                HttpMethod: '*',
                ThrottlingRateLimit: stageThrottle.rateLimit,
                ThrottlingBurstLimit: stageThrottle.burstLimit,
              },
            ],
          }
        : {}),
    },
  };
  if (usagePlan) {
    resources.ApiUsagePlan = {
      Type: 'AWS::ApiGateway::UsagePlan',
      Properties: {
        ApiStages: [{ ApiId: { Ref: 'Api' }, Stage: { Ref: 'ApiStage' } }],
        Throttle: { RateLimit: usagePlan.rateLimit, BurstLimit: usagePlan.burstLimit },
      },
    };
  }
  for (const [id, fn] of Object.entries(functions)) {
    resources[id] = {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Handler: 'index.handler',
        Runtime: 'nodejs24.x',
        ...(fn.timeoutSeconds === undefined ? {} : { Timeout: fn.timeoutSeconds }),
        ...(fn.memoryMb === undefined ? {} : { MemorySize: fn.memoryMb }),
        Environment: { Variables: fn.environment ?? {} },
      },
    };
  }
  return { Resources: resources };
}

/** The `Integration` of a MOCK method, as CDK synthesizes a CORS preflight's. */
function mockIntegration(mock: FixtureMock): Record<string, unknown> {
  return {
    Type: 'MOCK',
    RequestTemplates: { 'application/json': '{ statusCode: 200 }' },
    IntegrationResponses: [
      {
        StatusCode: String(mock.statusCode),
        ResponseParameters: Object.fromEntries(
          Object.entries(mock.headers ?? {}).map(([name, value]) => [
            `method.response.header.${name}`,
            `'${value}'`,
          ]),
        ),
        ResponseTemplates: { 'application/json': mock.template },
      },
    ],
  };
}

/** A served fixture API. */
export interface ApiFixture {
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>`: for requests outside the stage. */
  origin: string;
  /** The port of the API. */
  port: number;
  served: ServedTemplate;
  template: Template;
  /** The tokens the authorizer function was invoked with so far, in order (`Bearer ` stripped). */
  authorizerCalls(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Serves the fixture API with {@link startLocalAws} on 127.0.0.1 (any free port), its store in memory and its
 * event path off, open at once. The authorizer's calls are recorded in a temporary file.
 */
export async function startApiFixture(options: ApiFixtureOptions): Promise<ApiFixture> {
  const dir = await temporaryDir('api-fixture-');
  const callsFile = join(dir, 'authorizer-calls');
  await writeFile(callsFile, '');
  const functions: Record<string, FixtureFunction> = {
    Echo: { module: standIn('echo-event') },
    Authorizer: {
      module: standIn('behaviour-authorizer'),
      timeoutSeconds: options.authorizerTimeoutSeconds ?? 2,
      environment: { BEHAVIOUR_CALLS: callsFile },
    },
    ...options.functions,
  };
  const template = apiTemplate(options, functions);
  const served = await startLocalAws({
    template,
    assemblyDir: dir,
    functionSource: (logicalId) => functions[logicalId]?.module,
    tableName: (logicalId) => logicalId,
    dataDir: inMemory,
    port: 0,
    host: '127.0.0.1',
    environment: () => ({ AWS_REGION: 'us-east-1' }),
    events: false,
  });
  served.open();
  const origin = served.baseUrl.slice(0, -`/${stageName}`.length);
  return {
    baseUrl: served.baseUrl,
    origin,
    port: Number(new URL(origin).port),
    served,
    template,
    authorizerCalls: async () => (await readFile(callsFile, 'utf8')).split('\n').filter(Boolean),
    close: () => served.close(),
  };
}
