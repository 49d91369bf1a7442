/**
 * @module The public face of `local-aws`: {@link startLocalAws} serves a synthesized template on one
 * machine and returns the variables a caller sets to reach it (README.md "What it serves"). Beside it, with
 * their types, the parts a composer uses on their own: the embedded DynamoDB alone and its credentials (to
 * serve only a store, or to reach one a data folder holds), the EventBridge and SQS endpoint of a running local
 * AWS, Lambda's context and streaming runtime (to call a handler outside a template), a function's model and
 * the watch of the functions' modules. What only tests need is the `./testing` export (testing/index.ts);
 * nothing else of the package is public.
 */

export type { AccessLogContext } from './apigateway/gateway.ts';
export type { ErrorBodyRenderer } from './apigateway/gateway-response-render.ts';
export { eventsAndQueuesEndpoint } from './aws-endpoint.ts';
export {
  credentialsFile,
  credentialVariables,
  dataFolderCredentials,
  type StoreCredentials,
} from './common/store-credentials.ts';
export {
  connectLocalDynamoDb,
  DataFolderInUseError,
  inMemory,
  type LocalDynamoDb,
  startDynamoDb,
} from './dynamodb/dynamodb.ts';
export { watchFunctionModules } from './lambda/function-modules.ts';
export { lambdaContext } from './lambda/lambda-context.ts';
export { installStreamingRuntime, type ResponseStream } from './lambda/response-streaming.ts';
export type { StreamFailureRecord } from './mappings/stream-mapping.ts';
export { type ServedTemplate, type ServeOptions, startLocalAws } from './serve.ts';
export { functionModel, type Template } from './template/api-model.ts';
