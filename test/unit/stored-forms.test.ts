/**
 * The inventory table's stored forms (docs/architecture.md "Data layout"): an entry (lib/inventory/stored-item.ts),
 * its pet details (lib/inventory/pet-details.ts) and its last change (lib/inventory/last-change.ts), each with
 * and without its optional members: an absent member is no attribute at all.
 */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import { describe, expect, test } from 'vitest';
import { lastChangeAttributes } from '#lib/inventory/last-change.ts';
import { listShardOf } from '#lib/inventory/list-shard.ts';
import { fromStoredLabel, storedPetDetails } from '#lib/inventory/pet-details.ts';
import { storedItem } from '#lib/inventory/stored-item.ts';

describe('storedItem', () => {
  test('petId a Number, the list shard, and the reorder point only when the entry has one', () => {
    expect(storedItem({ petId: '-7', quantity: 2, status: 'sold', reorderPoint: 0 })).toStrictEqual({
      petId: NumberValue.from('-7'),
      quantity: 2,
      status: 'sold',
      reorderPoint: 0,
      listShard: listShardOf('-7'),
    });
    expect(storedItem({ petId: '5', quantity: 0, status: 'available' })).toStrictEqual({
      petId: NumberValue.from('5'),
      quantity: 0,
      status: 'available',
      listShard: listShardOf('5'),
    });
  });
});

describe('storedPetDetails', () => {
  test('name and category only when given; photoUrls and tags always, label ids as Numbers', () => {
    expect(
      storedPetDetails({
        name: 'Rex',
        category: { id: '9223372036854775807', name: 'Dogs' },
        photoUrls: ['https://example.com/rex.png'],
        tags: [{ id: '-1', name: 'friendly' }],
      }),
    ).toStrictEqual({
      name: 'Rex',
      category: { id: NumberValue.from('9223372036854775807'), name: 'Dogs' },
      photoUrls: ['https://example.com/rex.png'],
      tags: [{ id: NumberValue.from('-1'), name: 'friendly' }],
    });
    expect(storedPetDetails({})).toStrictEqual({ photoUrls: [], tags: [] });
  });

  test('a stored label reads back with its id digit for digit', () => {
    expect(fromStoredLabel({ id: NumberValue.from('9223372036854775807'), name: 'Dogs' })).toStrictEqual({
      id: '9223372036854775807',
      name: 'Dogs',
    });
  });
});

describe('lastChangeAttributes', () => {
  const now = new Date('2026-12-08T03:00:00.123Z');

  test('the key id, order id (a Number) and batch token only when the change has them', () => {
    expect(
      lastChangeAttributes(
        { reason: 'order_placed', keyId: 'abc', orderId: '9223372036854775807', requestToken: 't-1' },
        now,
      ),
    ).toStrictEqual({
      reason: 'order_placed',
      keyId: 'abc',
      orderId: NumberValue.from('9223372036854775807'),
      requestToken: 't-1',
      changedAt: '2026-12-08T03:00:00.123Z',
    });
    expect(lastChangeAttributes({ reason: 'import' }, now)).toStrictEqual({
      reason: 'import',
      changedAt: '2026-12-08T03:00:00.123Z',
    });
  });
});
