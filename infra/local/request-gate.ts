/** The local server's readiness and drain: README "Quick start" (a first start; Ctrl-C). */
import type { RequestListener } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** A gate around a request listener. */
export interface RequestGate {
  /** The listener to serve: holds each request until {@link RequestGate.open}, then passes it on. */
  listener: RequestListener;
  /** Lets held and further requests through. */
  open(): void;
  /** Resolves once no request is in flight, or after `limitMs` milliseconds, whichever comes first. */
  drain(limitMs: number): Promise<void>;
}

/** Gates `listener` (see {@link RequestGate}). */
export function requestGate(listener: RequestListener): RequestGate {
  let isOpen = false;
  let open = () => {};
  const ready = new Promise<void>((resolve) => {
    open = () => {
      isOpen = true;
      resolve();
    };
  });
  let inFlight = 0;
  let idle: (() => void) | undefined;
  return {
    listener(request, response) {
      inFlight += 1;
      response.once('close', () => {
        inFlight -= 1;
        if (inFlight === 0) idle?.();
      });
      if (isOpen) listener(request, response);
      else void ready.then(() => listener(request, response));
    },
    open,
    async drain(limitMs) {
      if (inFlight === 0) return;
      const drained = new Promise<void>((resolve) => {
        idle = resolve;
      });
      const timeout = new AbortController();
      await Promise.race([drained, sleep(limitMs, undefined, { signal: timeout.signal }).catch(() => {})]);
      timeout.abort();
    },
  };
}
