/**
 * The REST API: the operation table (lib/api.ts) rendered as API Gateway resources and methods, every method
 * behind the bearer TOKEN authorizer, and every gateway response of infra/gateway-responses.ts rendered as an
 * `AWS::ApiGateway::GatewayResponse` (docs/architecture.md "One table, three renderings").
 *
 * Stage `v1` (lib/api.ts `stageName`), so the base URL ends in `/v1` (docs/service-spec.md §9.1; docs/contract.md "Addresses"), with
 * per-environment throttling, X-Ray tracing and JSON access logs in an explicit log group. Methods and the
 * authorizer invoke each function's alias `live` (the permissions are on the alias), so CodeDeploy's traffic
 * shifting applies to every request (infra/gradual-deployment.ts).
 *
 * The access log ({@link accessLogFields}) has the standard fields, the authorizer's `principalId` (the key's
 * name, so a write can be traced to a key) and the X-Ray trace id; never a request header, so the bearer API key
 * is never logged (docs/contract.md "Authentication and authorization").
 */
import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { authorizerCacheTtlSeconds, operations, stageName } from '#lib/api.ts';
import { bearerHeaderPattern } from '#lib/auth/authorize.ts';
import { gatewayResponses } from './gateway-responses.ts';

/** Properties of an {@link InventoryApi}. */
export interface InventoryApiProps {
  /** The function serving each operation (its alias `live`), by lib/api.ts operation `name`. */
  functions: Readonly<Record<string, IFunction>>;
  /** The bearer authorizer function (its alias `live`, lib/api.ts `authorizer`). */
  authorizer: IFunction;
  /** Stage-wide throttling, requests per second and burst. */
  throttling: { rateLimit: number; burstLimit: number };
  /** Retention of the access log group. */
  logRetention: RetentionDays;
  /** What happens to the access log group when it leaves the stack. */
  logRemovalPolicy: RemovalPolicy;
}

/**
 * The fields of each access log line: API Gateway's standard JSON fields, `principalId` (the authorizer's
 * principal: the key's name, `-` when no key was accepted) and `xrayTraceId`.
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
  xrayTraceId: AccessLogField.contextXrayTraceId(),
};

/** The HTTP header that carries the API key (docs/service-spec.md §5.1). */
export const authorizationHeader = 'Authorization';

/** The service's REST API (see the module docstring). */
export class InventoryApi extends Construct {
  /** The REST API; its `url` is the stage URL `https://.../v1/`. */
  readonly restApi: RestApi;
  /** The log group receiving the stage's JSON access logs. */
  readonly accessLogGroup: LogGroup;

  /** @throws Error when an operation has no function, or a gateway response body contains `$` or `#` */
  constructor(scope: Construct, id: string, props: InventoryApiProps) {
    super(scope, id);
    this.accessLogGroup = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.restApi = new RestApi(this, 'RestApi', {
      // Unique per stack: API Gateway metrics (and so the alarms) are keyed by this name (dimension ApiName).
      restApiName: Stack.of(this).stackName,
      description: 'Pet store inventory service (docs/service-spec.md)',
      endpointTypes: [EndpointType.REGIONAL],
      // The account-wide role that lets API Gateway write access logs (required for any stage logging).
      cloudWatchRole: true,
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
      this.restApi.root
        .resourceForPath(operation.path)
        .addMethod(operation.method, new LambdaIntegration(handler, { allowTestInvoke: false }), {
          operationName: operation.name,
          authorizer,
          authorizationType: AuthorizationType.CUSTOM,
        });
    }

    for (const [type, body] of Object.entries(gatewayResponses)) {
      const template = JSON.stringify(body);
      // The template is Velocity: `$` and `#` would start references or directives instead of plain text.
      if (/[$#]/.test(template)) throw new Error(`gateway response ${type} body must not contain $ or #`);
      this.restApi.addGatewayResponse(`GatewayResponse${type}`, {
        type: ResponseType.of(type),
        statusCode: String(body.status),
        responseHeaders: { 'Content-Type': "'application/json'" },
        templates: { 'application/json': template },
      });
    }
  }
}
