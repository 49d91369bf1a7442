/** How the local server loads handler modules: once, or afresh after a change (`npm run dev`). */
import { registerHooks } from 'node:module';
import { watch } from 'chokidar';

/** The project root as a file URL (ends in `/`). */
const projectUrl = new URL('../../', import.meta.url);

/** The generation in watch mode (undefined: not watching), bumped on each change. */
let generation: number | undefined;

/** Whether the resolve hook is registered (once per process). */
let hooked = false;

/** Files that can be modules or data that modules import. */
const moduleFile = /\.(ts|mts|cts|js|mjs|cjs|json)$/;

/** Query parameter that carries the generation from a handler module to each project module it imports. */
const generationParameter = 'generation';

/** A module's `handler` export, imported from a path relative to the project root. */
async function importHandler<T>(entry: string): Promise<T> {
  const url = new URL(entry, projectUrl);
  if (generation !== undefined) url.searchParams.set(generationParameter, String(generation));
  return ((await import(url.href)) as { handler: T }).handler;
}

/**
 * The handler of `entry` (a module path from the project root). Outside watch mode: the handler itself.
 * In watch mode: a function that calls the current generation's handler, importing it on first use.
 */
export async function loadHandler<T extends (...args: never[]) => Promise<unknown>>(
  entry: string,
): Promise<T> {
  if (generation === undefined) return importHandler<T>(entry);
  let loaded: { generation: number; handler: Promise<T> } | undefined;
  const current = (): Promise<T> => {
    const now = generation ?? 0;
    if (loaded?.generation === now) return loaded.handler;
    loaded = { generation: now, handler: importHandler<T>(entry) };
    return loaded.handler;
  };
  const first = await current();
  const wrapper = async (...args: Parameters<T>) => (await current())(...args);
  // Marks the runtime reads off the handler (the streaming mark of `awslambda.streamifyResponse`) stay visible.
  for (const key of Object.getOwnPropertySymbols(first)) {
    Object.defineProperty(wrapper, key, Object.getOwnPropertyDescriptor(first, key) ?? {});
  }
  return wrapper as T;
}

/**
 * Turns on watch mode: from now on, handlers load per generation, and a change of a file under `folders`
 * (paths, recursive: written, added, removed, or replaced by an editor's rename-save) starts the next one.
 * Call before the handlers are loaded. chokidar, because Node's recursive `fs.watch` on Linux loses a file
 * once an editor has replaced it by renaming a temporary file over it.
 * @param onChange called with the changed file (a path under one of `folders`) after each new generation starts.
 * @returns once the folders are watched: a function that stops watching.
 */
export async function watchFunctionModules(
  folders: readonly string[],
  onChange: (file: string) => void,
): Promise<() => Promise<void>> {
  generation ??= 0;
  if (!hooked) registerGenerationHook();
  const watcher = watch([...folders], {
    ignoreInitial: true,
    // Only modules: an editor's temporary files (`x.ts.tmp`, `.x.swp`, `x~`) come and go at every save.
    ignored: (file, stats) => stats?.isFile() === true && !moduleFile.test(file),
  });
  watcher.on('all', (_event, file) => {
    generation = (generation ?? 0) + 1;
    onChange(file);
  });
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

/**
 * Registers the resolve hook that gives every file module (outside node_modules) imported by a module of
 * generation N the URL query of generation N, so a new generation gets fresh instances of all of them.
 */
function registerGenerationHook(): void {
  hooked = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const resolved = nextResolve(specifier, context);
      const parent = context.parentURL ? new URL(context.parentURL) : undefined;
      const parentGeneration = parent?.searchParams.get(generationParameter);
      const isOwnModule = resolved.url.startsWith('file:') && !resolved.url.includes('/node_modules/');
      if (!parentGeneration || !isOwnModule) return resolved;
      const url = new URL(resolved.url);
      url.searchParams.set(generationParameter, parentGeneration);
      return { ...resolved, url: url.href };
    },
  });
}
