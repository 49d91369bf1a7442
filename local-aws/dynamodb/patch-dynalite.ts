/**
 * The package's `postinstall`: applies its own patches (`patches/`, today `dynalite+4.0.0.patch`, which
 * releases LevelDB iterators with `close()`) with patch-package to the dynalite this package resolves,
 * wherever npm installed it: in this package's own `node_modules` when installed alone, in the workspace
 * root's when hoisted there. patch-package patches the `node_modules` of the folder it runs in and takes a
 * patch folder relative to it, so it runs in the folder holding that `node_modules`. A patch already applied
 * is left as it is.
 *
 * @throws exits with patch-package's status when a patch does not apply (`--error-on-fail`).
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const installRoot = resolve(dirname(require.resolve('dynalite/package.json')), '..', '..');
const patchDir = relative(installRoot, resolve(import.meta.dirname, '..', 'patches'));
const patchPackage = require.resolve('patch-package/index.js');

const { status } = spawnSync(process.execPath, [patchPackage, '--patch-dir', patchDir, '--error-on-fail'], {
  cwd: installRoot,
  stdio: 'inherit',
});
process.exitCode = status ?? 1;
