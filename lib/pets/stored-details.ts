/**
 * How pet details are stored on their inventory entry's item (docs/contract.md "Pets"; docs/architecture.md
 * "Data layout"): `name` (String), `category` (Map `{id: Number, name: String}`), `photoUrls` (List of String),
 * `tags` (List of Map). Written by addPet and the import tool, read by getPetById.
 */
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { Label, PetDetails } from './pet.ts';

/** A category or tag as stored: the int64 id a DynamoDB Number. */
export type StoredLabel = { id: NumberValue; name: string };

/** A label as stored. */
export const toStoredLabel = ({ id, name }: Label): StoredLabel => ({ id: NumberValue.from(id), name });

/** A stored label as a Label (id as canonical decimal text). */
export const fromStoredLabel = ({ id, name }: StoredLabel): Label => ({ id: id.toString(), name });

/** The attributes of `details` to add to an entry's item: `photoUrls` and `tags` always, empty by default. */
export function storedPetDetails(details: PetDetails): Record<string, unknown> {
  return {
    ...(details.name === undefined ? {} : { name: details.name }),
    ...(details.category === undefined ? {} : { category: toStoredLabel(details.category) }),
    photoUrls: details.photoUrls ?? [],
    tags: (details.tags ?? []).map(toStoredLabel),
  };
}
