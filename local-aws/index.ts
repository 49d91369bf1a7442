/**
 * @module The public entry of `@pet-store/local-aws`: serve a synthesized template on one machine
 * ({@link startLocalAws}), and the parts a composer or its tests use on their own: the embedded DynamoDB and
 * its change stream, the API engine, Lambda's context and runtime, the event source mappings on a stream.
 * It exports only what the service or its tests use; the package's own suites (local-aws/test/) import its
 * modules by path. Nothing else of the package is public (local-aws/README.md).
 */

export { type AccessLogContext, createEngine, type Engine } from './apigateway/gateway.ts';
export { createApiServer } from './apigateway/http-server.ts';
export { localAwsEndpoint } from './aws-endpoint.ts';
export { endpointFile } from './common/endpoint-file.ts';
export {
  credentialsFile,
  credentialVariables,
  dataFolderCredentials,
  newStoreCredentials,
  type StoreCredentials,
} from './common/store-credentials.ts';
export { retentionVariable } from './dynamodb/change-stream.ts';
export { connectLocalDynamoDb, inMemory, type LocalDynamoDb, startDynamoDb } from './dynamodb/dynamodb.ts';
export { watchFunctionModules } from './lambda/function-modules.ts';
export { lambdaContext } from './lambda/lambda-context.ts';
export type { InvokeOutcome } from './lambda/lambda-runtime.ts';
export {
  installStreamingRuntime,
  integrationContentType,
  isStreamingHandler,
  type ResponseStream,
  splitPrelude,
} from './lambda/response-streaming.ts';
export { type LocalAws, prepareLocalAws } from './local-aws.ts';
export {
  type RunningStreamMapping,
  type StreamFailureRecord,
  startStreamMapping,
  streamMappingModels,
} from './mappings/stream-mapping.ts';
export { startLocalAws } from './serve.ts';
export { apiModel, functionModel, type Template } from './template/api-model.ts';
