/**
 * The local server's readiness and drain: README.md "Memory and shutdown" (a first start; a shutdown);
 * behaviour.md L1.
 */
import type { RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A gate around a request listener. */
export interface RequestGate {
  /** The listener to serve: holds each request until {@link RequestGate.open}, then passes it on. */
  listener: RequestListener;
  /** Lets held and further requests through. */
  open(): void;
  /**
   * Starts the drain at once (before the first `await`): from now on every response carries `Connection:
   * close` and each connection closes after its last answer. Resolves once no request is in flight, or after
   * `limitMs` milliseconds, whichever comes first.
   */
  drain(limitMs: number): Promise<void>;
}

/**
 * Marks `response` as its connection's last: Node writes `Connection: close` and closes the connection once it
 * is sent. False when its headers are already written (a response streaming since before the drain).
 */
function closeAfter(response: ServerResponse): boolean {
  if (response.headersSent) return false;
  response.setHeader('Connection', 'close');
  return true;
}

/**
 * Gates `listener` (see {@link RequestGate}). While draining, only the newest request of a connection is marked
 * last: a request pipelined behind it moves the mark to itself, so that no answer already promised is dropped
 * when the connection closes. A request arriving behind an answer already sent with `Connection: close` is not
 * run (its connection closes unanswered): no write lands without its answer.
 */
export function requestGate(listener: RequestListener): RequestGate {
  let isOpen = false;
  let open = () => {};
  const ready = new Promise<void>((resolve) => {
    open = () => {
      isOpen = true;
      resolve();
    };
  });
  /** The responses not yet closed, and the newest one of each connection. */
  const inFlight = new Set<ServerResponse>();
  const newest = new Map<Socket, ServerResponse>();
  let draining = false;
  let idle: (() => void) | undefined;

  /** Closes `response`'s connection once it is sent, if it is still the connection's newest. */
  function endConnectionAfter(response: ServerResponse): void {
    if (closeAfter(response)) return;
    response.once('finish', () => {
      if (newest.get(response.req.socket) === response) response.req.socket.destroySoon();
    });
  }

  return {
    listener(request, response) {
      const socket = request.socket;
      const previous = newest.get(socket);
      if (draining) {
        if (previous && previous.getHeader('Connection') === 'close') {
          if (previous.headersSent) {
            request.resume();
            return;
          }
          previous.removeHeader('Connection');
        }
        endConnectionAfter(response);
      }
      inFlight.add(response);
      newest.set(socket, response);
      response.once('close', () => {
        inFlight.delete(response);
        if (newest.get(socket) === response) newest.delete(socket);
        if (inFlight.size === 0) idle?.();
      });
      if (isOpen) listener(request, response);
      else void ready.then(() => listener(request, response));
    },
    open,
    async drain(limitMs) {
      draining = true;
      for (const response of newest.values()) endConnectionAfter(response);
      if (inFlight.size === 0) return;
      const drained = new Promise<void>((resolve) => {
        idle = resolve;
      });
      const timeout = new AbortController();
      await Promise.race([drained, sleep(limitMs, undefined, { signal: timeout.signal }).catch(() => {})]);
      timeout.abort();
    },
  };
}
