/**
 * createWebhookEndpoint's body, the endpointId of a path and the `WebhookEndpoint` JSON (lib/webhooks/endpoint-json.ts;
 * docs/contract.md "History and events"): the exact 400s and the members shown.
 */
import { describe, expect, test } from 'vitest';
import type { Endpoint } from '#lib/webhooks/endpoint.ts';
import {
  createdEndpointJson,
  endpointValue,
  parseEndpointId,
  parseNewEndpoint,
} from '#lib/webhooks/endpoint-json.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

const invalid = (message: string) => ({ code: 'invalid_request', message, status: 400 });
const types = 'the types are inventory.changed, inventory.low_stock, order.changed';
const urlRule = 'url must be a string of 1 to 2000 characters such as https://example.com/hooks';

describe('the createWebhookEndpoint body', () => {
  test('a url alone, or with 1 to 3 distinct event types', () => {
    expect(parseNewEndpoint({ url: 'https://example.com/hooks' })).toStrictEqual({
      url: 'https://example.com/hooks',
    });
    expect(parseNewEndpoint({ url: 'x', events: ['order.changed'] })).toStrictEqual({
      url: 'x',
      events: ['order.changed'],
    });
    const all = ['order.changed', 'inventory.low_stock', 'inventory.changed'];
    expect(parseNewEndpoint({ url: 'x', events: all })).toStrictEqual({ url: 'x', events: all });
  });

  test('a url of exactly 2000 characters is taken; 2001 or none is 400', () => {
    const longest = `https://example.com/${'a'.repeat(1980)}`;
    expect(parseNewEndpoint({ url: longest })).toStrictEqual({ url: longest });
    for (const url of [`${longest}a`, '', 7, undefined]) {
      expect(thrownErrorBody(() => parseNewEndpoint({ url }))).toStrictEqual(invalid(urlRule));
    }
  });

  test.each([null, [], 'https://example.com/hooks'])('%j is not an object: 400', (body) => {
    expect(thrownErrorBody(() => parseNewEndpoint(body))).toStrictEqual(
      invalid('request body must be a JSON object such as {"url": "https://example.com/hooks"}'),
    );
  });

  test('another member: 400 naming it', () => {
    expect(thrownErrorBody(() => parseNewEndpoint({ url: 'x', secret: 's' }))).toStrictEqual(
      invalid('a webhook endpoint may only contain url, events; not allowed: "secret"'),
    );
  });

  test('events empty or not an array: 400', () => {
    for (const events of [[], 'order.changed', null]) {
      expect(thrownErrorBody(() => parseNewEndpoint({ url: 'x', events }))).toStrictEqual(
        invalid(`events must be a non-empty array of event types: ${types}`),
      );
    }
  });

  test('an unknown type is named; a value that is no string makes the same 400 without a name', () => {
    expect(
      thrownErrorBody(() => parseNewEndpoint({ url: 'x', events: ['order.changed', 'pet.changed'] })),
    ).toStrictEqual(invalid(`events holds what is not an event type: "pet.changed"; ${types}`));
    expect(thrownErrorBody(() => parseNewEndpoint({ url: 'x', events: ['order.changed', 7] }))).toStrictEqual(
      invalid(`events holds what is not an event type; ${types}`),
    );
    expect(thrownErrorBody(() => parseNewEndpoint({ url: 'x', events: [7, 'pet.changed'] }))).toStrictEqual(
      invalid(`events holds what is not an event type: "pet.changed"; ${types}`),
    );
  });

  test('a type listed twice: 400', () => {
    expect(
      thrownErrorBody(() =>
        parseNewEndpoint({ url: 'x', events: ['order.changed', 'inventory.changed', 'order.changed'] }),
      ),
    ).toStrictEqual(invalid('events lists an event type twice'));
  });
});

describe('the endpointId of a path', () => {
  test('ws_ and 16 base64url characters', () => {
    expect(parseEndpointId('ws_AAAAAAAAAAAAAA-_')).toBe('ws_AAAAAAAAAAAAAA-_');
  });

  test.each([
    undefined,
    '',
    'ws_AAAAAAAAAAAAAAA',
    'ws_AAAAAAAAAAAAAAAAA',
    'xws_AAAAAAAAAAAAAAAA',
    'ws_AAAAAAAAAAAAAAA=',
    'ws_AAAAAAAAAAAAAAAAx',
  ])('%j: 400', (text) => {
    expect(thrownErrorBody(() => parseEndpointId(text))).toStrictEqual(
      invalid(
        'endpointId must be ws_ followed by 16 letters, digits, - or _ (as createWebhookEndpoint answers it)',
      ),
    );
  });
});

describe('the WebhookEndpoint JSON', () => {
  const endpoint: Endpoint = {
    endpointId: 'ws_AAAAAAAAAAAAAAAA',
    url: 'https://example.com/hooks',
    events: ['inventory.changed'],
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    previousSecret: 'whsec_old',
    createdAt: '2026-12-08T10:00:00.000Z',
    state: 'enabled',
    ownerKeyId: 'aaaaaaaaaaaa',
  };

  test('id, url, events, state, createdAt; the secret only when created, never the previous one or the owner', () => {
    expect(createdEndpointJson(endpoint)).toBe(
      '{"id":"ws_AAAAAAAAAAAAAAAA","url":"https://example.com/hooks","events":["inventory.changed"],"state":"enabled","createdAt":"2026-12-08T10:00:00.000Z","secret":"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}',
    );
  });

  test('failingSince and disabledAt when set', () => {
    const { secret: _secret, ...view } = endpoint;
    expect(
      JSON.stringify(
        endpointValue({
          ...view,
          state: 'disabled',
          failingSince: '2026-12-03T10:00:00.000Z',
          disabledAt: '2026-12-08T10:00:00.000Z',
        }),
      ),
    ).toBe(
      '{"id":"ws_AAAAAAAAAAAAAAAA","url":"https://example.com/hooks","events":["inventory.changed"],"state":"disabled","createdAt":"2026-12-08T10:00:00.000Z","failingSince":"2026-12-03T10:00:00.000Z","disabledAt":"2026-12-08T10:00:00.000Z"}',
    );
  });
});
