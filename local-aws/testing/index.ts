/**
 * @module The testing kit of `local-aws` (its `./testing` export), for suites that test a stack served by
 * it: careful raw uploads, temporary folders removed after the suite, the embedded DynamoDB started for a suite (its
 * tables the suite's own), a stand-in TOKEN authorizer whose token picks its outcome, a stand-in function with a
 * slow Init phase, a stand-in consumer of a DynamoDB stream, the crash points of the embedded DynamoDB and the
 * replay of a request's body that a preloaded hook of the store reads first (README.md "Tests"); and the parts a
 * suite drives alone, without `startLocalAws`'s whole: the API's engine and server on a model of the template, the
 * buses and queues with their endpoint, a stream mapping, the store's fresh credentials, the endpoint file, the
 * streaming prelude's pieces.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';

export { createEngine, type Engine } from '../apigateway/gateway.ts';
export { createApiServer } from '../apigateway/http-server.ts';
export { endpointFile } from '../common/endpoint-file.ts';
export { newStoreCredentials } from '../common/store-credentials.ts';
export { retentionVariable } from '../dynamodb/change-stream.ts';
export { type EventsAndQueues, prepareEventsAndQueues } from '../events-and-queues.ts';
export type { InvokeOutcome } from '../lambda/lambda-runtime.ts';
export { integrationContentType, isStreamingHandler, splitPrelude } from '../lambda/response-streaming.ts';
export {
  type RunningStreamMapping,
  startStreamMapping,
  streamMappingModels,
} from '../mappings/stream-mapping.ts';
export { apiModel } from '../template/api-model.ts';
export { bytesReadBy, holdUpload, type UploadOutcome, upload } from './raw-upload.ts';
export { readAndReplay } from './replayed-request.ts';
export { removeTemporaryDirs, temporaryDir } from './temporary-dirs.ts';
export { createActiveTable, dynamoDbClient, startTestStore, type TestStore } from './test-store.ts';

/** The module (absolute path) of the stand-in authorizer: `index.handler`, calls appended to `BEHAVIOUR_CALLS`. */
export const behaviourAuthorizerModule = fileURLToPath(
  new URL('./functions/behaviour-authorizer.ts', import.meta.url),
);

/**
 * The module (absolute path) of a stand-in function whose Init phase takes `INIT_DELAY_MS` milliseconds, then
 * answers 200 `{"initialized":true}` (testing/functions/slow-init-function.ts).
 */
export const slowInitFunctionModule = fileURLToPath(
  new URL('./functions/slow-init-function.ts', import.meta.url),
);

/**
 * The module (absolute path) of the stand-in stream consumer: `handler` logs each batch to `STREAM_LOG` and acts
 * on each record's `action` attribute (testing/functions/stream-function.ts).
 */
export const streamFunctionModule = fileURLToPath(new URL('./functions/stream-function.ts', import.meta.url));

/**
 * The crash hook (a `file:` URL) to preload with `node --import=<url>` into a process serving the embedded
 * DynamoDB: `CRASH_AT` and `CRASH_ARMED` pick the point where it kills itself (testing/crash-hook.ts).
 */
export const crashHookUrl = pathToFileURL(fileURLToPath(new URL('./crash-hook.ts', import.meta.url))).href;
