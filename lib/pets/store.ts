/** The pets store, a pet and its inventory entry as one item: docs/contract.md "Pets". */
import type { DynamoDBDocumentClient, NumberValue } from '@aws-sdk/lib-dynamodb';
import { newPetId } from '../assigned-ids.ts';
import { writeOnce } from '../clients/single-write.ts';
import { getEntry, projection } from '../inventory/entry-store.ts';
import type { PetStatus } from '../inventory/inventory-item.ts';
import { lastChangeAttributes } from '../inventory/last-change.ts';
import { fromStoredLabel, type StoredLabel, storedPetDetails } from '../inventory/pet-details.ts';
import { storedItem } from '../inventory/stored-item.ts';
import { retried, TryAgain } from '../retry.ts';
import type { NewPet, Pet } from './pet.ts';

/** What the pet handlers need from the inventory table. */
export interface PetStore {
  /**
   * Creates the pet and its inventory entry (quantity 0) in one conditional put (`attribute_not_exists`)
   * committed once (lib/clients/single-write.ts: the SDK's retry of a put that committed is not applied again,
   * whatever was written since), recording the change `created` by the API key `keyId`. Without `pet.id`,
   * assigns a random id from 1 to 2^53 - 1 (lib/assigned-ids.ts `newPetId`) once per try; only a refusal (a
   * real collision) draws a new id, in a new transaction, at most {@link assignAttempts} times
   * (docs/architecture.md "Writes exactly once").
   * @returns the stored Pet, or `'exists'` when `pet.id` was given and is taken.
   * @throws Error when no free id was found
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
  /** True when `pet` was created, false when another item holds its id. */
  const put = async (pet: Pet, keyId: string | undefined): Promise<boolean> => {
    const refusal = await writeOnce(client, {
      Put: {
        TableName: tableName,
        Item: {
          ...storedItem({ petId: pet.id, quantity: 0, status: pet.status }),
          ...storedPetDetails(pet),
          ...lastChangeAttributes({ reason: 'created', ...(keyId === undefined ? {} : { keyId }) }),
        },
        ConditionExpression: 'attribute_not_exists(petId)',
      },
    });
    return refusal === undefined;
  };

  return {
    async add(pet, keyId) {
      if (pet.id !== undefined)
        return (await put({ ...pet, id: pet.id }, keyId)) ? { ...pet, id: pet.id } : 'exists';
      return retried(
        { attempts: assignAttempts, minPauseMs: 0, maxPauseMs: 0 },
        async () => {
          const assigned = { ...pet, id: newPetId() };
          if (await put(assigned, keyId)) return assigned;
          throw new TryAgain();
        },
        () => new Error('no free pet id found'),
      );
    },

    async get(petId) {
      const item = await getEntry(client, tableName, petId, petProjection);
      return item && fromStored(item);
    },
  };
}
