/**
 * @module The public entry of `@pet-store/local-aws`: serve a synthesized template on one machine
 * ({@link startLocalAws}), and the parts a composer or its tests use on their own: the embedded DynamoDB and
 * its change stream, the API engine, Lambda's context and runtime, the event source mappings on a stream.
 * Nothing else of the package is public (local-aws/README.md).
 */

export { createEngine, type Engine } from './apigateway/gateway.ts';
export type { ErrorBodyRenderer } from './apigateway/gateway-response-render.ts';
export { type ApiServerOptions, createApiServer } from './apigateway/http-server.ts';
export { type AwsEndpoint, localAwsEndpoint } from './aws-endpoint.ts';
export { endpointFile } from './common/endpoint-file.ts';
export {
  credentialsFile,
  credentialVariables,
  dataFolderCredentials,
  newStoreCredentials,
  requireSignature,
  type StoreCredentials,
} from './common/store-credentials.ts';
export { unverifiedBodySlots } from './common/unverified-bodies.ts';
export {
  type ChangeStream,
  retentionVariable,
  type StreamLevelDb,
  type StreamRecord,
} from './dynamodb/change-stream.ts';
export { connectLocalDynamoDb, inMemory, type LocalDynamoDb, startDynamoDb } from './dynamodb/dynamodb.ts';
export { watchFunctionModules } from './lambda/function-modules.ts';
export { lambdaContext } from './lambda/lambda-context.ts';
export { type InvokeOutcome, LambdaFunction } from './lambda/lambda-runtime.ts';
export {
  installStreamingRuntime,
  integrationContentType,
  isStreamingHandler,
  type ResponseStream,
  splitPrelude,
} from './lambda/response-streaming.ts';
export { type LocalAws, type LocalAwsOptions, prepareLocalAws } from './local-aws.ts';
export {
  type RunningStreamMapping,
  type StreamFailureRecord,
  type StreamMappingModel,
  startStreamMapping,
  streamMappingModels,
} from './mappings/stream-mapping.ts';
export { type ServedTemplate, type ServeOptions, startLocalAws } from './serve.ts';
export {
  type ApiModel,
  apiModel,
  type FunctionModel,
  functionModel,
  type ModelOptions,
  type Template,
} from './template/api-model.ts';
