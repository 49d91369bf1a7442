/**
 * Watch mode of a served template ({@link watchFunctionModules}): which file changes retire the functions' execution
 * environments (each new environment imports the code afresh), and what is printed when a function's
 * environment fails, such as a module that cannot load.
 */
import { watch } from 'chokidar';

/** Files that can be modules or data that modules import. */
const moduleFile = /\.(ts|mts|cts|js|mjs|cjs|json)$/;

/**
 * Watches `folders` (paths, recursive) for a module that is written, added, removed, or replaced by an
 * editor's rename-save. chokidar, because Node's recursive `fs.watch` on Linux loses a file once an editor has
 * replaced it by renaming a temporary file over it. Changes of one file less than 50 ms apart are reported
 * once (chokidar's throttle).
 * @param onChange called with the changed file (a path under one of `folders`).
 * @returns once the folders are watched: a function that stops watching.
 */
export async function watchFunctionModules(
  folders: readonly string[],
  onChange: (file: string) => void,
): Promise<() => Promise<void>> {
  const watcher = watch([...folders], {
    ignoreInitial: true,
    // Only modules: an editor's temporary files (`x.ts.tmp`, `.x.swp`, `x~`) come and go at every save.
    ignored: (file, stats) => stats?.isFile() === true && !moduleFile.test(file),
  });
  watcher.on('all', (_event, file) => onChange(file));
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  return () => watcher.close();
}

/**
 * The line(s) the local server prints to its stderr when a function's execution environment fails, such as a
 * module that cannot be loaded (a syntax error, a missing import): the time, the function, the Lambda error
 * type, then the error's name and message after the source excerpt Node puts before them for a syntax error
 * (file, line, caret). Never the stack frames; the client gets only the Error body of a 500.
 */
export function environmentErrorReport(functionName: string, errorType: string, error: Error): string {
  const head = (error.stack ?? `${error.name}: ${error.message}`).split(/\n\s+at /)[0]?.trimEnd();
  return `${new Date().toISOString()} ${functionName} ${errorType}: ${head}\n`;
}
