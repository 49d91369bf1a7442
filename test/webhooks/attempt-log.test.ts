/**
 * The webhook attempts an endpoint's owner sees (lib/webhooks/attempt-log.ts; docs/contract.md "History and
 * events": listWebhookAttempts, `WebhookAttempt` of openapi.yaml): the short error reasons, the attempt as
 * listed, and the list's cursor.
 */
import { describe, expect, test } from 'vitest';
import {
  attemptCursor,
  attemptError,
  attemptIdOfCursor,
  attemptOf,
  newAttemptId,
} from '#lib/webhooks/attempt-log.ts';

describe("a failed attempt's short reason, without host, address or stack", () => {
  test.each([
    [{ delivered: true, status: 204 }, null],
    [{ delivered: false, timedOut: true, error: 'no response within 2 s' }, 'timeout'],
    [{ delivered: false, status: 300, error: 'HTTP 300' }, 'redirect_not_followed'],
    [{ delivered: false, status: 302, error: 'HTTP 302' }, 'redirect_not_followed'],
    [{ delivered: false, status: 399, error: 'HTTP 399' }, 'redirect_not_followed'],
    [{ delivered: false, status: 299, error: 'HTTP 299' }, null],
    [{ delivered: false, status: 400, error: 'HTTP 400' }, null],
    [{ delivered: false, status: 503, error: 'HTTP 503' }, null],
    [{ delivered: false, error: 'connect ECONNREFUSED 10.1.2.3:443' }, 'connection_refused'],
    [{ delivered: false, error: 'read ECONNRESET' }, 'connection_reset'],
    [{ delivered: false, error: 'socket hang up' }, 'connection_reset'],
    [{ delivered: false, error: 'getaddrinfo ENOTFOUND hooks.example.com' }, 'dns_failure'],
    [{ delivered: false, error: 'getaddrinfo EAI_AGAIN hooks.example.com' }, 'dns_failure'],
    [{ delivered: false, error: 'cannot sign: the secret is not base64' }, 'signing_failed'],
    [
      { delivered: false, error: 'hooks.example.com resolves to a refused address: no address' },
      'url_refused',
    ],
    [{ delivered: false, error: 'http://x/: webhook URLs must be https (not allowed)' }, 'url_refused'],
    [{ delivered: false, error: '"x" is not an absolute URL' }, 'url_refused'],
    [{ delivered: false, error: 'https://u:p@x/: credentials in the URL' }, 'url_refused'],
    [{ delivered: false, error: 'write EPIPE' }, 'connection_failed'],
  ] as const)('%j: %j', (outcome, reason) => {
    expect(attemptError(outcome)).toBe(reason);
  });
});

describe('an attempt as listed', () => {
  const message = {
    endpointId: 'ws_AAAAAAAAAAAAAAAA',
    eventId: 'inventory.7.1',
    type: 'inventory.changed',
  } as const;
  const started = Date.parse('2026-12-08T10:00:00.000Z');

  test('a failed attempt with its next time; the members in the contract order', () => {
    const attempt = attemptOf(
      {
        message,
        attempt: 2,
        started,
        outcome: { delivered: false, status: 503, error: 'HTTP 503' },
        nextAttemptAt: new Date('2026-12-08T10:05:00.000Z'),
      },
      new Date(started + 1_234),
    );
    expect(attempt).toStrictEqual({
      id: expect.stringMatching(/^wa_1796724000000[0-9a-f]{12}$/),
      eventId: 'inventory.7.1',
      eventType: 'inventory.changed',
      attempt: 2,
      attemptedAt: '2026-12-08T10:00:00.000Z',
      durationMs: 1_234,
      responseStatus: 503,
      error: null,
      outcome: 'failed',
      nextAttemptAt: '2026-12-08T10:05:00.000Z',
    });
    expect(Object.keys(attempt)).toStrictEqual([
      'id',
      'eventId',
      'eventType',
      'attempt',
      'attemptedAt',
      'durationMs',
      'responseStatus',
      'error',
      'outcome',
      'nextAttemptAt',
    ]);
  });

  test('delivered: no error, no next time; no response: a null status; a clock gone back: 0 ms', () => {
    expect(
      attemptOf(
        { message, attempt: 1, started, outcome: { delivered: true, status: 200 } },
        new Date(started + 5),
      ),
    ).toMatchObject({
      durationMs: 5,
      responseStatus: 200,
      error: null,
      outcome: 'delivered',
      nextAttemptAt: null,
    });
    expect(
      attemptOf(
        { message, attempt: 1, started, outcome: { delivered: false, error: 'read ECONNRESET' } },
        new Date(started - 3),
      ),
    ).toMatchObject({ durationMs: 0, responseStatus: null, error: 'connection_reset', outcome: 'failed' });
  });
});

describe("listWebhookAttempts' cursor", () => {
  test('an attempt id: wa_, 13 digits of epoch ms, 12 hex; ids sort by time', () => {
    const early = newAttemptId(new Date(5));
    expect(early).toMatch(/^wa_0000000000005[0-9a-f]{12}$/);
    expect(newAttemptId(new Date(5))).not.toBe(early);
    expect(newAttemptId(new Date(10)) > early).toBe(true);
  });

  test('the cursor of an attempt id reads back to it; any other text is no cursor', () => {
    const id = newAttemptId(new Date('2026-12-08T10:00:00.000Z'));
    const cursor = attemptCursor(id);
    expect(cursor).toBe(Buffer.from(id).toString('base64url'));
    expect(attemptIdOfCursor(cursor)).toBe(id);
    // 28 bytes in 38 characters: the last one's 4 low bits are unused, so another last character with the same
    // high bits decodes to the same id; only the cursor as written is one.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(cursor.at(-1) ?? '');
    const twin = `${cursor.slice(0, -1)}${alphabet[last ^ 1]}`;
    expect(Buffer.from(twin, 'base64url').toString()).toBe(id);
    expect(attemptIdOfCursor(twin)).toBeUndefined();
    for (const other of [
      '',
      `${cursor}=`,
      `${cursor}.`,
      Buffer.from('wa_179672400000').toString('base64url'),
      Buffer.from(`${id}0`).toString('base64url'),
      Buffer.from(`x${id}`).toString('base64url'),
      Buffer.from(id.toUpperCase()).toString('base64url'),
      'A'.repeat(65),
    ]) {
      expect(attemptIdOfCursor(other)).toBeUndefined();
    }
  });
});
