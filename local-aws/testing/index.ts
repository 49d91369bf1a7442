/**
 * @module The testing kit of `@pet-store/local-aws` (its `./testing` export), for suites that test a stack
 * served by it: careful raw uploads, temporary folders removed after the suite, and a stand-in TOKEN authorizer
 * whose token picks its outcome (local-aws/README.md "Tests").
 */
import { fileURLToPath } from 'node:url';

export { bytesReadBy, holdUpload, type UploadOutcome, upload } from './raw-upload.ts';
export { removeTemporaryDirs, temporaryDir } from './temporary-dirs.ts';

/** The module (absolute path) of the stand-in authorizer: `index.handler`, calls appended to `BEHAVIOUR_CALLS`. */
export const behaviourAuthorizerModule = fileURLToPath(
  new URL('./functions/behaviour-authorizer.ts', import.meta.url),
);
