/**
 * A bound on request bodies read before their sender is authenticated: README.md "Request bodies
 * before credentials". A body that cannot be judged without reading it (a SigV4 signature covers the body) waits
 * for one of a few slots, its socket unread meanwhile, so anonymous senders cannot make the server buffer
 * more than `slots` bodies at once.
 */
import type { IncomingMessage } from 'node:http';

/**
 * Most bodies read at once before their sender is authenticated, on each port: a store's own clients sign every
 * request and their bodies are read as fast as they arrive, so a client waits for a slot only behind others'
 * bodies, while anonymous senders hold at most this many bodies in memory.
 */
export const unverifiedBodySlots = 16;

/** Slots for bodies read before authentication. */
export interface BodySlots {
  /** Resolves with the function that frees the slot, once one is free (first come, first served). */
  acquire(): Promise<() => void>;
  /** Slots taken now. */
  readonly taken: number;
}

/** `count` slots (at least 1). */
export function bodySlots(count: number): BodySlots {
  let taken = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else taken--;
  };
  return {
    acquire() {
      return new Promise((resolve) => {
        let released = false;
        const grant = () =>
          resolve(() => {
            if (released) return;
            released = true;
            release();
          });
        if (taken < count) {
          taken++;
          grant();
        } else waiting.push(grant);
      });
    },
    get taken() {
      return taken;
    },
  };
}

/**
 * True when `request` declares a body (RFC 9112 section 6.3) not yet received whole: an answer sent without
 * reading it closes the connection (`Connection: close`), so the body is never read.
 */
export function bodyPending(request: IncomingMessage): boolean {
  const declared =
    request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length']) > 0;
  return declared && !request.complete;
}
