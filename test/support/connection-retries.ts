/**
 * @module Connection-level errors retried as an HTTP client does: a request whose connection was reset or
 * refused before any answer (a listen backlog overflowing under hundreds of new connections on a loaded
 * machine) is sent again on a new connection; any answer, and any other error, is final (docs/testing.md
 * "Many connections").
 */

/**
 * The timeout of a test that opens hundreds of connections at once: no time is asserted, so a loaded machine
 * only takes longer, within this bound.
 */
export const manyConnectionsTimeoutMs = 180_000;

/** Codes of errors where the connection failed before an answer began. */
const connectionErrorCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ECONNABORTED']);

/** Attempts of one request, the first included. */
const maxAttempts = 5;

/** Pause before a new attempt, in milliseconds. */
const retryPauseMs = 100;

/** True when `error` (or its `cause`, as `fetch` wraps it) is a connection-level error. */
export function isConnectionError(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code && connectionErrorCodes.has(code)) return true;
  }
  return false;
}

/**
 * Runs `send` until it resolves, retrying connection-level errors ({@link isConnectionError}) up to 5 attempts
 * in all. `send` must open a new connection for each attempt or reuse a healthy one.
 * @throws the last attempt's error, or at once any error that is not connection-level
 */
export async function retryConnectionErrors<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (attempt >= maxAttempts || !isConnectionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs * attempt));
    }
  }
}
