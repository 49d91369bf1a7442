/** The REST API rendered from lib/api.ts (docs/architecture.md "One table, three renderings"). */
import { Duration, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseTransferMode,
  ResponseType,
  RestApi,
  TokenAuthorizer,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { authorizerCacheTtlSeconds, operations, stageName } from '#lib/api.ts';
import { bearerHeaderPattern } from '#lib/auth/authorize.ts';
import { corsMaxAgeSeconds, corsRequestHeaders } from '#lib/http/cors.ts';
import { type GatewayResponseType, gatewayResponseHeaders, gatewayResponses } from './gateway-responses.ts';
import type { ThrottleSettings } from './settings.ts';

/** Properties of an {@link InventoryApi}. */
export interface InventoryApiProps {
  /** The function serving each operation (its alias `live`), by lib/api.ts operation `name`. */
  functions: Readonly<Record<string, IFunction>>;
  /** The bearer authorizer function (its alias `live`, lib/api.ts `authorizer`). */
  authorizer: IFunction;
  /** Stage-wide throttling, requests per second and burst. */
  throttling: ThrottleSettings;
  /** The default usage plan's throttle, applied to each API key on its own. */
  keyThrottling: ThrottleSettings;
  /** Retention of the access log group. */
  logRetention: RetentionDays;
  /** What happens to the access log group when it leaves the stack. */
  logRemovalPolicy: RemovalPolicy;
  /** Origins allowed to call the API from a browser (infra/settings.ts); empty for no CORS. */
  corsAllowedOrigins: readonly string[];
}

/**
 * The fields of each access log line: API Gateway's standard JSON fields, `principalId` (the authorizer's
 * principal: the key's name, `-` when no key was accepted), `keyId` (the key's id, from the authorizer's
 * context, as `keys list` shows it: names need not be unique) and `xrayTraceId`.
 */
export const accessLogFields: Readonly<Record<string, string>> = {
  requestId: AccessLogField.contextRequestId(),
  ip: AccessLogField.contextIdentitySourceIp(),
  user: AccessLogField.contextIdentityUser(),
  caller: AccessLogField.contextIdentityCaller(),
  requestTime: AccessLogField.contextRequestTime(),
  httpMethod: AccessLogField.contextHttpMethod(),
  resourcePath: AccessLogField.contextResourcePath(),
  status: AccessLogField.contextStatus(),
  protocol: AccessLogField.contextProtocol(),
  responseLength: AccessLogField.contextResponseLength(),
  principalId: AccessLogField.contextAuthorizerPrincipalId(),
  keyId: AccessLogField.contextAuthorizer('keyId'),
  xrayTraceId: AccessLogField.contextXrayTraceId(),
};

/**
 * The CORS headers of every gateway response: none without allowed origins; the origin itself when there is one;
 * with several, the request's `Origin` echoed, since a gateway response maps headers but cannot choose among
 * values (its bodies are the constant Error bodies of infra/gateway-responses.ts, so no data is shown).
 */
export function gatewayResponseCorsHeaders(origins: readonly string[]): Record<string, string> {
  if (origins.length === 0) return {};
  const allowOrigin = origins.length === 1 ? `'${origins[0]}'` : 'method.request.header.Origin';
  return { 'Access-Control-Allow-Origin': allowOrigin, Vary: "'Origin'" };
}

/**
 * The origins, checked. @throws Error when one is not an http(s) origin written as a browser writes `Origin`
 * (lower case, no path, no wildcard: a preflight answers exact origins)
 */
function checkedOrigins(origins: readonly string[]): readonly string[] {
  for (const origin of origins) {
    const url = URL.parse(origin);
    const hostname = /^([a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/;
    if (
      !url ||
      !['http:', 'https:'].includes(url.protocol) ||
      url.origin !== origin ||
      !hostname.test(url.hostname)
    ) {
      throw new Error(
        `CORS origin ${JSON.stringify(origin)} is not an origin such as https://backoffice.example.com`,
      );
    }
  }
  return origins;
}

/** The HTTP header that carries the API key (docs/service-spec.md §5.1). */
export const authorizationHeader = 'Authorization';

/** The service's REST API: stage `v1`, the authorizer on every method, gateway responses, usage plan. */
export class InventoryApi extends Construct {
  /** The REST API; its `url` is the stage URL `https://.../v1/`. */
  readonly restApi: RestApi;
  /** The log group receiving the stage's JSON access logs. */
  readonly accessLogGroup: LogGroup;
  /** The default usage plan: the per-key throttle of every key without its own. */
  readonly usagePlan: UsagePlan;

  /**
   * @throws Error when an operation has no function, a gateway response body contains `$` or `#`, or a CORS
   *   origin is not an origin
   */
  constructor(scope: Construct, id: string, props: InventoryApiProps) {
    super(scope, id);
    const corsOrigins = checkedOrigins(props.corsAllowedOrigins);
    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.restApi = new RestApi(this, 'RestApi', {
      // Unique per stack: API Gateway metrics (and so the alarms) are keyed by this name (dimension ApiName).
      restApiName: Stack.of(this).stackName,
      description: 'Pet store inventory service (docs/service-spec.md)',
      endpointTypes: [EndpointType.REGIONAL],
      // The account-wide role that lets API Gateway write logs is set once per account (infra/account-stack.ts):
      // declared here, staging and production in one account would overwrite each other's.
      cloudWatchRole: false,
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      deployOptions: {
        stageName,
        throttlingRateLimit: props.throttling.rateLimit,
        throttlingBurstLimit: props.throttling.burstLimit,
        accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
        loggingLevel: MethodLoggingLevel.OFF,
        metricsEnabled: true,
        tracingEnabled: true,
      },
    });

    const authorizer = new TokenAuthorizer(this, 'BearerAuthorizer', {
      handler: props.authorizer,
      identitySource: IdentitySource.header(authorizationHeader),
      // A value that is not `Bearer <token>` is 401 UNAUTHORIZED without invoking the function.
      validationRegex: bearerHeaderPattern,
      resultsCacheTtl: Duration.seconds(authorizerCacheTtlSeconds),
    });

    for (const operation of operations) {
      const handler = props.functions[operation.name];
      if (!handler) throw new Error(`no function for operation ${operation.name}`);
      this.restApi.root.resourceForPath(operation.path).addMethod(
        operation.method,
        new LambdaIntegration(handler, {
          allowTestInvoke: false,
          ...(operation.streaming && { responseTransferMode: ResponseTransferMode.STREAM }),
        }),
        {
          operationName: operation.name,
          authorizer,
          authorizationType: AuthorizationType.CUSTOM,
          apiKeyRequired: true,
        },
      );
    }
    if (corsOrigins.length > 0) this.addCorsPreflights(corsOrigins);

    this.usagePlan = this.restApi.addUsagePlan('DefaultUsagePlan', {
      name: `${Stack.of(this).stackName}-default`,
      description: 'Per-key throttle of every API key without its own (infra/settings.ts apiKeys.throttle)',
      throttle: props.keyThrottling,
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });

    for (const [type, body] of Object.entries(gatewayResponses)) {
      const template = JSON.stringify(body);
      // The template is Velocity: `$` and `#` would start references or directives instead of plain text.
      if (/[$#]/.test(template)) throw new Error(`gateway response ${type} body must not contain $ or #`);
      this.restApi.addGatewayResponse(`GatewayResponse${type}`, {
        type: ResponseType.of(type),
        statusCode: String(body.status),
        responseHeaders: {
          'Content-Type': "'application/json'",
          // Static values are written in single quotes (API Gateway's parameter mapping of a literal).
          ...Object.fromEntries(
            Object.entries(gatewayResponseHeaders[type as GatewayResponseType] ?? {}).map(([name, value]) => [
              name,
              `'${value}'`,
            ]),
          ),
          ...gatewayResponseCorsHeaders(corsOrigins),
        },
        templates: { 'application/json': template },
      });
    }
  }

  /** An OPTIONS method answering the CORS preflight on each resource with an operation (CDK's MOCK integration). */
  private addCorsPreflights(origins: readonly string[]): void {
    const methodsByPath = new Map<string, string[]>();
    for (const { path, method } of operations)
      methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
    for (const [path, methods] of methodsByPath) {
      const preflight = this.restApi.root.resourceForPath(path).addCorsPreflight({
        allowOrigins: [...origins],
        allowMethods: methods,
        allowHeaders: [...corsRequestHeaders],
        maxAge: Duration.seconds(corsMaxAgeSeconds),
        statusCode: 204,
      });
      const reason =
        'CORS preflight (docs/operating.md "CORS"): browsers send it without credentials (Fetch standard), so it cannot require the API key; a MOCK integration that answers with the CORS headers only and reaches no function or data.';
      Validations.of(preflight).acknowledge(
        { id: 'AwsSolutions-APIG4', reason },
        { id: 'AwsSolutions-COG4', reason },
      );
    }
  }
}
