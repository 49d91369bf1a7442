/**
 * The local bus's event pattern matcher (eventbridge/event-pattern.ts; behaviour.md V3), on the
 * examples of EventBridge's documentation: exact values, arrays in the event, prefix, anything-but, exists.
 */
import { describe, expect, test } from 'vitest';
import { compileEventPattern } from '../eventbridge/event-pattern.ts';

const event = {
  source: 'example.shop',
  'detail-type': 'stock.changed',
  resources: ['arn:a', 'arn:b'],
  detail: {
    itemId: '9001',
    reason: 'arrival',
    quantity: { from: 1, to: 3 },
    orderId: null,
    tags: ['x', 'y'],
  },
};

describe('compileEventPattern', () => {
  test.each([
    [{ source: ['example.shop'] }, true],
    [{ source: ['other', 'example.shop'] }, true],
    [{ source: ['other'] }, false],
    [{ resources: ['arn:b'] }, true],
    [{ detail: { tags: ['y', 'z'] } }, true],
    [{ detail: { quantity: { to: [3] } } }, true],
    [{ detail: { quantity: { to: ['3'] } } }, false],
    [{ detail: { orderId: [null] } }, true],
    [{ detail: { itemId: [{ prefix: '90' }] } }, true],
    [{ detail: { itemId: [{ prefix: '10' }] } }, false],
    [{ detail: { reason: [{ 'anything-but': 'import' }] } }, true],
    [{ detail: { reason: [{ 'anything-but': ['import', 'arrival'] }] } }, false],
    [{ detail: { reason: [{ 'anything-but': { prefix: 'arr' } }] } }, false],
    [{ detail: { keyId: [{ exists: false }] } }, true],
    [{ detail: { keyId: [{ exists: true }] } }, false],
    [{ detail: { itemId: [{ exists: true }] } }, true],
    [{ detail: { quantity: [{ exists: true }] } }, false],
    [{ detail: { missing: { deeper: [{ exists: false }] } } }, true],
    [{ detail: { missing: { deeper: ['x'] } } }, false],
    [{ source: ['example.shop'], detail: { itemId: ['9001'], reason: ['return'] } }, false],
  ])('%j matches: %s', (pattern, expected) => {
    expect(compileEventPattern(pattern)(event)).toBe(expected);
  });

  test('takes the pattern as JSON text too', () => {
    expect(compileEventPattern('{"source":["example.shop"]}')(event)).toBe(true);
  });

  test.each([
    [{ source: [] }, /empty array/],
    [{ source: 'example.shop' }, /array of values or an object/],
    [{ detail: { n: [{ numeric: ['>', 1] }] } }, /numeric.*not served locally/],
    [{ detail: { n: [{ 'equals-ignore-case': 'a' }] } }, /equals-ignore-case.*not served locally/],
    [{ detail: { n: [{ exists: true }, 'a'] } }, /only condition/],
  ])('refuses %j', (pattern, message) => {
    expect(() => compileEventPattern(pattern)).toThrow(message);
  });
});
