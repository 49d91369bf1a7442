/**
 * The local AWS's testing kit (`local-aws/testing`) as the bench reaches it: outside test/, the
 * project imports the local AWS only through its entry or test/support (test/setup/folder-imports.test.ts).
 * Tests import the kit itself.
 */
export {
  dynamoDbClient,
  removeTemporaryDirs,
  startTestStore,
  temporaryDir,
} from 'local-aws/testing';
