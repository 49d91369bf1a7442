/** The pets store, a pet and its inventory entry as one item: docs/contract.md "Pets". */
import { type DynamoDBDocumentClient, NumberValue } from '@aws-sdk/lib-dynamodb';
import { newPetId } from '../assigned-ids.ts';
import { writeOnce } from '../clients/single-write.ts';
import { type ClaimedWrite, claimPut, heldClaim, requestDigest } from '../idempotency/claim.ts';
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
   * (docs/architecture.md "Writes exactly once"). With `keyed`, the Idempotency-Key's claim (holding the
   * pet's id) goes first in the transaction: its refusal means the key's own pet was created before, answered
   * as created, or `key_reused`.
   * @returns the stored Pet, or `'exists'` when `pet.id` was given and is taken.
   * @throws Error when no free id was found
   */
  add(pet: NewPet, keyId?: string, keyed?: ClaimedWrite): Promise<Pet | 'exists' | 'key_reused'>;
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
  /**
   * The pet as created (this request's, or the key's earlier one its claim names), `'taken'` when another item
   * holds its id, or `'key_reused'`.
   */
  const put = async (pet: Pet, keyId: string | undefined, keyed: ClaimedWrite | undefined) => {
    const claim = keyed && {
      Put: claimPut(
        keyed.tableName,
        keyed.claim,
        requestDigest,
        { petId: NumberValue.from(pet.id) },
        Date.now(),
      ),
    };
    const refusal = await writeOnce(
      client,
      {
        Put: {
          TableName: tableName,
          Item: {
            ...storedItem({ petId: pet.id, quantity: 0, status: pet.status }),
            ...storedPetDetails(pet),
            ...lastChangeAttributes({ reason: 'created', ...(keyId === undefined ? {} : { keyId }) }),
          },
          ConditionExpression: 'attribute_not_exists(petId)',
        },
      },
      claim,
    );
    if (refusal === undefined) return pet;
    if (!refusal.byClaim) return 'taken';
    const held = heldClaim(refusal.item, (keyed as ClaimedWrite).claim, requestDigest);
    return held === 'key_reused' ? held : { ...pet, id: held.petId?.N as string };
  };

  return {
    async add(pet, keyId, keyed) {
      if (pet.id !== undefined) {
        const added = await put({ ...pet, id: pet.id }, keyId, keyed);
        return added === 'taken' ? 'exists' : added;
      }
      return retried(
        { attempts: assignAttempts, minPauseMs: 0, maxPauseMs: 0 },
        async () => {
          const added = await put({ ...pet, id: newPetId() }, keyId, keyed);
          if (added === 'taken') throw new TryAgain();
          return added;
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
