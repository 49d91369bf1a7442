/**
 * What `npm start` is doing while it starts, on stderr (stdout keeps the lines of the ready service and the
 * functions' logs): each step's name as it begins, its seconds once it ends, then the whole start's
 * (docs/local-api.md "Starting").
 */

/** Runs one step of a start: `name` says what it does (`creating the tables`). */
export type StartStep = <T>(name: string, work: () => Promise<T>) => Promise<T>;

/** Seconds since `since` (a `performance.now()`), with one decimal: `4.2 s`. */
function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * A start's progress written to `write`: `<Name>... <seconds>` per step on one line (`failed` instead when the
 * step throws, so that the error's own line starts a line), and `Started in <seconds>` from {@link done}.
 */
export function startProgress(write: (text: string) => void = (text) => process.stderr.write(text)) {
  const began = performance.now();
  const step: StartStep = async (name, work) => {
    const started = performance.now();
    write(`${name[0]?.toUpperCase()}${name.slice(1)}... `);
    try {
      const result = await work();
      write(`${seconds(started)}\n`);
      return result;
    } catch (error) {
      write('failed\n');
      throw error;
    }
  };
  return {
    step,
    /** Writes the whole start's duration. */
    done: () => write(`Started in ${seconds(began)}\n`),
  };
}
