/** The API the local engine serves, read from a synthesized template only: behaviour.md. */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** A CloudFormation template as JSON. */
export interface Template {
  Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }
  >;
}

/** A Lambda function of the template, ready to run locally (lambda-runtime.ts runs it). */
export interface FunctionModel {
  /** The function's logical id: its name in logs, in its context and in `AWS_LAMBDA_FUNCTION_NAME`. */
  logicalId: string;
  /** Absolute path of the module holding the handler. */
  module: string;
  /** The handler's export name (`Handler: index.handler` -> `handler`). */
  exportName: string;
  /** `Environment.Variables`, resolved (table names: the local ones). */
  environment: Record<string, string>;
  /** `MemorySize` (128 when absent, as Lambda). */
  memoryMb: number;
  /** `Timeout` in seconds (3 when absent, as Lambda). */
  timeoutSeconds: number;
}

/** A TOKEN authorizer (`AWS::ApiGateway::Authorizer`). */
export interface AuthorizerModel {
  logicalId: string;
  /** The header of `IdentitySource` (`method.request.header.Authorization` -> `Authorization`). */
  identityHeader: string;
  /** `IdentityValidationExpression`, when set. */
  validationExpression?: string;
  /** `AuthorizerResultTtlInSeconds` (300 when absent, as API Gateway). */
  ttlSeconds: number;
  /** Logical id of the function its `AuthorizerUri` invokes. */
  functionId: string;
}

/** What a method's integration does. */
export type IntegrationModel =
  | { type: 'lambda'; functionId: string; streaming: boolean }
  | {
      type: 'mock';
      statusCode: number;
      headers: Record<string, string>;
      /** The `application/json` response template (Velocity), rendered per request (gateway.ts). */
      template: string;
    };

/** A method (`AWS::ApiGateway::Method`) on a resource path of the API. */
export interface MethodModel {
  /** `GET`, `PATCH`, ... or `ANY`. */
  httpMethod: string;
  /** The resource path, e.g. `/items/{itemId}` (`/` for the root). */
  resourcePath: string;
  /** The authorizer's logical id when `AuthorizationType` is `CUSTOM`, else undefined (served without one). */
  authorizerId?: string;
  /** `ApiKeyRequired`: the request needs a usage identifier from the authorizer (API key source AUTHORIZER). */
  apiKeyRequired: boolean;
  integration: IntegrationModel;
}

/** A usage plan's throttle (`AWS::ApiGateway::UsagePlan` `Throttle`): requests per second and burst. */
export interface ThrottleModel {
  rateLimit: number;
  burstLimit: number;
}

/** A gateway response (`AWS::ApiGateway::GatewayResponse`) as the template has it. */
export interface GatewayResponseModel {
  /** `StatusCode`, when set. */
  statusCode?: number;
  /** Static header values of `ResponseParameters` (`gatewayresponse.header.X: "'v'"`). */
  headers: Record<string, string>;
  /** Headers copied from the request (`gatewayresponse.header.X: method.request.header.Y`): X -> Y. */
  requestHeaders: Record<string, string>;
  /** The `application/json` template of `ResponseTemplates`, when set. */
  body?: string;
}

/** The whole API. */
export interface ApiModel {
  /** The stage name (the first path segment of every address). */
  stage: string;
  methods: MethodModel[];
  authorizers: Record<string, AuthorizerModel>;
  /** By `ResponseType`. */
  gatewayResponses: Record<string, GatewayResponseModel>;
  functions: Record<string, FunctionModel>;
  /**
   * The stage's usage plan throttle, applied to each API key on its own (undefined when the template has no
   * usage plan: then no method may require an API key).
   */
  keyThrottle?: ThrottleModel;
}

/** How the template's references are made local. */
export interface ModelOptions {
  /** The cloud assembly folder (asset paths are relative to it). */
  assemblyDir: string;
  /** The local name of a table, by the table's logical id. @throws when the table is unknown */
  tableName(logicalId: string): string;
  /** Variables set on every function over the template's (the local DynamoDB endpoint, for instance). */
  overrides: Record<string, string>;
  /**
   * The module to run for a function instead of its bundle (a dev server serving TypeScript sources, for instance);
   * undefined: the bundle of the asset metadata.
   */
  sourceOf?: (logicalId: string) => string | undefined;
  /**
   * The local value of another resource's `Ref` (attribute undefined) or `Fn::GetAtt` (a queue's URL, a bus's
   * name: events-and-queues.ts); undefined when it has none.
   */
  resourceValue?: (logicalId: string, attribute?: string) => string | undefined;
}

type Resources = Template['Resources'];

/** A CloudFormation error naming the resource. */
function invalid(logicalId: string, message: string): Error {
  return new Error(`template: ${logicalId}: ${message}`);
}

/** The logical id of the first `Ref` or `Fn::GetAtt` inside `value` whose resource type is one of `types`. */
export function referencedId(
  value: unknown,
  resources: Resources,
  types: readonly string[],
): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = referencedId(item, resources, types);
      if (found) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const target =
    typeof record.Ref === 'string'
      ? record.Ref
      : Array.isArray(record['Fn::GetAtt'])
        ? (record['Fn::GetAtt'][0] as string)
        : undefined;
  if (target && types.includes(resources[target]?.Type ?? '')) return target;
  return referencedId(Object.values(record), resources, types);
}

/** The function a Lambda ARN expression points at, through an alias or a version when it names one. */
export function functionOf(value: unknown, resources: Resources): string | undefined {
  const id = referencedId(value, resources, [
    'AWS::Lambda::Function',
    'AWS::Lambda::Alias',
    'AWS::Lambda::Version',
  ]);
  if (!id) return undefined;
  const resource = resources[id];
  if (resource?.Type === 'AWS::Lambda::Function') return id;
  return functionOf(resource?.Properties?.FunctionName, resources);
}

const pseudoParameters: Record<string, string> = {
  'AWS::Region': 'us-east-1',
  'AWS::AccountId': '000000000000',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
};

/** Resolves an environment value: text, a table's `Ref` or `Arn`, a pseudo parameter, `Fn::Join` of those. */
function resolveValue(value: unknown, resources: Resources, options: ModelOptions, owner: string): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  const record = (value ?? {}) as Record<string, unknown>;
  if (typeof record.Ref === 'string') {
    const pseudo = pseudoParameters[record.Ref];
    if (pseudo) return pseudo;
    if (resources[record.Ref]?.Type === 'AWS::DynamoDB::Table') return options.tableName(record.Ref);
    const local = options.resourceValue?.(record.Ref);
    if (local !== undefined) return local;
  }
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && resources[getAtt[0]]?.Type === 'AWS::DynamoDB::Table' && getAtt[1] === 'Arn') {
    return `arn:aws:dynamodb:us-east-1:000000000000:table/${options.tableName(getAtt[0])}`;
  }
  if (Array.isArray(getAtt)) {
    const local = options.resourceValue?.(String(getAtt[0]), String(getAtt[1]));
    if (local !== undefined) return local;
  }
  const join = record['Fn::Join'];
  if (Array.isArray(join) && Array.isArray(join[1])) {
    return join[1].map((part) => resolveValue(part, resources, options, owner)).join(String(join[0]));
  }
  throw invalid(owner, `cannot resolve ${JSON.stringify(value)} locally`);
}

/** The handler module file of a bundle folder for `Handler: <file>.<export>`, as the Node.js runtime finds it. */
function bundleModule(folder: string, file: string, owner: string): string {
  for (const extension of ['.js', '.mjs', '.cjs']) {
    const path = join(folder, `${file}${extension}`);
    if (existsSync(path)) return path;
  }
  throw invalid(owner, `no ${file}.js, ${file}.mjs or ${file}.cjs in ${folder} (Handler)`);
}

/**
 * The function `logicalId` of `resources` as lambda-runtime.ts runs it: its module, handler export, resolved
 * environment (with `options.overrides` over it), MemorySize and Timeout.
 * @throws Error naming the function when its Handler, bundle or an environment value cannot be served locally
 */
export function functionModel(logicalId: string, resources: Resources, options: ModelOptions): FunctionModel {
  const properties = resources[logicalId]?.Properties ?? {};
  const handler = String(properties.Handler ?? '');
  const dot = handler.lastIndexOf('.');
  if (dot <= 0) throw invalid(logicalId, `Handler ${JSON.stringify(handler)} is not <file>.<export>`);
  const source = options.sourceOf?.(logicalId);
  let module = source;
  if (!module) {
    const assetPath = resources[logicalId]?.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string')
      throw invalid(logicalId, 'no aws:asset:path metadata (synthesize with asset metadata)');
    const folder = isAbsolute(assetPath) ? assetPath : join(options.assemblyDir, assetPath);
    module = bundleModule(folder, handler.slice(0, dot), logicalId);
  }
  const variables = ((properties.Environment as { Variables?: Record<string, unknown> })?.Variables ??
    {}) as Record<string, unknown>;
  const environment = Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      resolveValue(value, resources, options, logicalId),
    ]),
  );
  return {
    logicalId,
    module,
    exportName: handler.slice(dot + 1),
    environment: { ...environment, ...options.overrides },
    memoryMb: Number(properties.MemorySize ?? 128),
    timeoutSeconds: Number(properties.Timeout ?? 3),
  };
}

/** The resource path of every `AWS::ApiGateway::Resource`, by logical id (`RootResourceId` is `/`). */
function resourcePaths(resources: Resources): (reference: unknown) => string {
  const pathOf = (reference: unknown): string => {
    const record = (reference ?? {}) as Record<string, unknown>;
    const getAtt = record['Fn::GetAtt'];
    if (Array.isArray(getAtt) && getAtt[1] === 'RootResourceId') return '/';
    const id = String(record.Ref ?? '');
    const resource = resources[id];
    if (resource?.Type !== 'AWS::ApiGateway::Resource')
      throw new Error(`template: unknown API resource ${JSON.stringify(reference)}`);
    const parent = pathOf(resource.Properties?.ParentId);
    return `${parent === '/' ? '' : parent}/${String(resource.Properties?.PathPart)}`;
  };
  return pathOf;
}

/** A `'quoted'` static mapping value (`"'application/json'"` -> `application/json`), or undefined. */
function staticValue(value: unknown): string | undefined {
  const text = String(value);
  return /^'.*'$/s.test(text) ? text.slice(1, -1) : undefined;
}

/** Request header names mapped by a `ResponseParameters` map with `prefix` (`method.request.header.Y`), by header. */
function requestHeaderMappings(parameters: unknown, prefix: string): Record<string, string> {
  const mappings: Record<string, string> = {};
  for (const [name, value] of Object.entries((parameters ?? {}) as Record<string, unknown>)) {
    const source = /^method\.request\.header\.(.+)$/.exec(String(value))?.[1];
    if (name.startsWith(prefix) && source) mappings[name.slice(prefix.length)] = source;
  }
  return mappings;
}

/** Static header values of a `ResponseParameters` map with the given prefix (`gatewayresponse.header.`). */
function staticHeaders(parameters: unknown, prefix: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((parameters ?? {}) as Record<string, unknown>)) {
    const header = staticValue(value);
    if (name.startsWith(prefix) && header !== undefined) headers[name.slice(prefix.length)] = header;
  }
  return headers;
}

function integrationModel(
  logicalId: string,
  properties: Record<string, unknown>,
  resources: Resources,
): IntegrationModel {
  const integration = (properties.Integration ?? {}) as Record<string, unknown>;
  if (integration.Type === 'MOCK') {
    const [response] = (integration.IntegrationResponses ?? []) as Record<string, unknown>[];
    const templates = (response?.ResponseTemplates ?? {}) as Record<string, string>;
    return {
      type: 'mock',
      statusCode: Number(response?.StatusCode ?? 200),
      headers: staticHeaders(response?.ResponseParameters, 'method.response.header.'),
      template: templates['application/json'] ?? '',
    };
  }
  if (integration.Type !== 'AWS_PROXY')
    throw invalid(logicalId, `integration type ${String(integration.Type)} is not served locally`);
  const functionId = functionOf(integration.Uri, resources);
  if (!functionId) throw invalid(logicalId, 'integration Uri names no Lambda function');
  return { type: 'lambda', functionId, streaming: integration.ResponseTransferMode === 'STREAM' };
}

/**
 * Reads the API of `template` (one REST API per template).
 * @throws Error naming the resource when something the engine needs is missing or not served locally
 */
export function apiModel(template: Template, options: ModelOptions): ApiModel {
  const resources = template.Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
  const pathOf = resourcePaths(resources);
  const functionIds = new Set<string>();

  const authorizers: Record<string, AuthorizerModel> = {};
  for (const [logicalId, { Properties: properties = {} }] of ofType('AWS::ApiGateway::Authorizer')) {
    if (properties.Type !== 'TOKEN')
      throw invalid(logicalId, `authorizer type ${String(properties.Type)} is not served locally`);
    const header = /^method\.request\.header\.(.+)$/.exec(String(properties.IdentitySource ?? ''))?.[1];
    if (!header) throw invalid(logicalId, 'IdentitySource is not method.request.header.<name>');
    const functionId = functionOf(properties.AuthorizerUri, resources);
    if (!functionId) throw invalid(logicalId, 'AuthorizerUri names no Lambda function');
    functionIds.add(functionId);
    authorizers[logicalId] = {
      logicalId,
      identityHeader: header,
      ...(typeof properties.IdentityValidationExpression === 'string'
        ? { validationExpression: properties.IdentityValidationExpression }
        : {}),
      ttlSeconds: Number(properties.AuthorizerResultTtlInSeconds ?? 300),
      functionId,
    };
  }

  const methods: MethodModel[] = [];
  for (const [logicalId, { Properties: properties = {} }] of ofType('AWS::ApiGateway::Method')) {
    const integration = integrationModel(logicalId, properties, resources);
    if (integration.type === 'lambda') functionIds.add(integration.functionId);
    const custom = properties.AuthorizationType === 'CUSTOM';
    const authorizerId = custom
      ? referencedId(properties.AuthorizerId, resources, ['AWS::ApiGateway::Authorizer'])
      : undefined;
    if (custom && !authorizerId) throw invalid(logicalId, 'AuthorizationType CUSTOM without an AuthorizerId');
    const apiKeyRequired = properties.ApiKeyRequired === true;
    if (apiKeyRequired && !authorizerId) {
      throw invalid(
        logicalId,
        'ApiKeyRequired without an authorizer (API key source HEADER is not served locally)',
      );
    }
    methods.push({
      httpMethod: String(properties.HttpMethod),
      resourcePath: pathOf(properties.ResourceId),
      ...(authorizerId ? { authorizerId } : {}),
      apiKeyRequired,
      integration,
    });
  }

  const gatewayResponses: Record<string, GatewayResponseModel> = {};
  for (const [, { Properties: properties = {} }] of ofType('AWS::ApiGateway::GatewayResponse')) {
    const templates = (properties.ResponseTemplates ?? {}) as Record<string, string>;
    const body = templates['application/json'];
    gatewayResponses[String(properties.ResponseType)] = {
      ...(properties.StatusCode !== undefined ? { statusCode: Number(properties.StatusCode) } : {}),
      headers: staticHeaders(properties.ResponseParameters, 'gatewayresponse.header.'),
      requestHeaders: requestHeaderMappings(properties.ResponseParameters, 'gatewayresponse.header.'),
      ...(body !== undefined ? { body } : {}),
    };
  }

  const [stage] = ofType('AWS::ApiGateway::Stage');
  if (!stage) throw new Error('template: no AWS::ApiGateway::Stage');
  const functions = Object.fromEntries(
    [...functionIds].map((logicalId) => [logicalId, functionModel(logicalId, resources, options)]),
  );
  const keyThrottle = usagePlanThrottle(ofType('AWS::ApiGateway::UsagePlan'));
  if (!keyThrottle && methods.some((method) => method.apiKeyRequired)) {
    throw new Error('template: a method requires an API key but no usage plan has a Throttle');
  }
  return {
    stage: String(stage[1].Properties?.StageName),
    methods,
    authorizers,
    gatewayResponses,
    functions,
    ...(keyThrottle ? { keyThrottle } : {}),
  };
}

/** The `Throttle` of the first usage plan that has one (a template's usage plan for the API's keys). */
function usagePlanThrottle(plans: [string, Resources[string]][]): ThrottleModel | undefined {
  for (const [, { Properties: properties = {} }] of plans) {
    const throttle = properties.Throttle as { RateLimit?: unknown; BurstLimit?: unknown } | undefined;
    if (throttle?.RateLimit !== undefined && throttle.BurstLimit !== undefined) {
      return { rateLimit: Number(throttle.RateLimit), burstLimit: Number(throttle.BurstLimit) };
    }
  }
  return undefined;
}
