/** Temporary folders removed after the suite: the local AWS's testing kit's (`@pet-store/local-aws/testing`). */
export { removeTemporaryDirs, temporaryDir } from '@pet-store/local-aws/testing';
