/** The pets store, a pet and its inventory entry as one item: docs/contract.md "Pets". */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, type NumberValue, PutCommand } from '@aws-sdk/lib-dynamodb';
import { newPetId } from '../assigned-ids.ts';
import { getEntry, projection } from '../inventory/entry-store.ts';
import type { PetStatus } from '../inventory/inventory-item.ts';
import { lastChangeAttributes, newRequestToken, requestTokenOf } from '../inventory/last-change.ts';
import { fromStoredLabel, type StoredLabel, storedPetDetails } from '../inventory/pet-details.ts';
import { storedItem } from '../inventory/stored-item.ts';
import type { NewPet, Pet } from './pet.ts';

/** What the pet handlers need from the inventory table. */
export interface PetStore {
  /**
   * Creates the pet and its inventory entry (quantity 0) in one conditional PutItem (`attribute_not_exists`),
   * recording the change `created` by the API key `keyId` and a request token chosen once per call
   * (lib/inventory/last-change.ts). A refusal whose stored item carries that token is this call's own earlier
   * attempt, committed before the SDK sent it again: the pet is created (docs/architecture.md "Writes exactly
   * once"). Without `pet.id`, assigns a random id from 1 to 2^53 - 1 (lib/assigned-ids.ts `newPetId`), trying a
   * new one if another item holds it (at most 3 times).
   * @returns the stored Pet, or `'exists'` when `pet.id` was given and is taken.
   */
  add(pet: NewPet, keyId?: string): Promise<Pet | 'exists'>;
  /** The pet of `petId` (a strongly consistent GetItem), or undefined when there is no item. */
  get(petId: string): Promise<Pet | undefined>;
}

type StoredPet = {
  petId: NumberValue;
  status: PetStatus;
  name?: string;
  category?: StoredLabel;
  photoUrls?: string[];
  tags?: StoredLabel[];
};

function fromStored(item: Record<string, unknown>): Pet {
  const { petId, status, name, category, photoUrls, tags } = item as StoredPet;
  return {
    id: petId.toString(),
    ...(name === undefined ? {} : { name }),
    ...(category === undefined ? {} : { category: fromStoredLabel(category) }),
    photoUrls: photoUrls ?? [],
    tags: (tags ?? []).map(fromStoredLabel),
    status,
  };
}

/** The attributes of a Pet on its item. */
const petProjection = projection(['petId', 'status', 'name', 'category', 'photoUrls', 'tags']);

/** Attempts to find a free identifier for a pet without `id`. */
const assignAttempts = 3;

/** The store over `client` and the inventory table `tableName`. */
export function petStore(client: DynamoDBDocumentClient, tableName: string): PetStore {
  /** True when `pet` was created by this request (`requestToken`), false when another item holds its id. */
  const put = async (pet: Pet, keyId: string | undefined, requestToken: string): Promise<boolean> => {
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...storedItem({ petId: pet.id, quantity: 0, status: pet.status }),
            ...storedPetDetails(pet),
            ...lastChangeAttributes({
              reason: 'created',
              ...(keyId === undefined ? {} : { keyId }),
              requestToken,
            }),
          },
          ConditionExpression: 'attribute_not_exists(petId)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException)
        return requestTokenOf(error.Item) === requestToken;
      throw error;
    }
  };

  return {
    async add(pet, keyId) {
      const requestToken = newRequestToken();
      if (pet.id !== undefined)
        return (await put({ ...pet, id: pet.id }, keyId, requestToken)) ? { ...pet, id: pet.id } : 'exists';
      for (let attempt = 1; ; attempt++) {
        const assigned = { ...pet, id: newPetId() };
        if (await put(assigned, keyId, requestToken)) return assigned;
        if (attempt === assignAttempts) throw new Error('no free pet id found');
      }
    },

    async get(petId) {
      const item = await getEntry(client, tableName, petId, petProjection);
      return item && fromStored(item);
    },
  };
}
