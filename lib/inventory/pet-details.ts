/** The pet details an inventory entry may carry, as stored: docs/architecture.md "Data layout". */
import { NumberValue } from '@aws-sdk/lib-dynamodb';

/** A category or a tag: an int64 `id` (canonical decimal string) and a `name`. */
export interface Label {
  id: string;
  name: string;
}

/** The details a pet adds to its inventory entry, each optional (entries imported without them have none). */
export interface PetDetails {
  name?: string;
  category?: Label;
  photoUrls?: string[];
  tags?: Label[];
}

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
