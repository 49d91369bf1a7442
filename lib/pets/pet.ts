/** Pet, after the OpenAPI Petstore's `Pet`, one item with its inventory entry: docs/contract.md "Pets". */
import { HttpError, invalidRequest, unknownMembers } from '../http/errors.ts';
import { isPetStatus, type PetStatus, petStatuses } from '../inventory/inventory-item.ts';
import type { Label, PetDetails } from '../inventory/pet-details.ts';
import { int64Member } from '../inventory/pet-id.ts';

/** A pet. `name` is absent only for entries imported without pet details. Ids are canonical decimal strings. */
export interface Pet {
  id: string;
  name?: string;
  category?: Label;
  photoUrls: string[];
  tags: Label[];
  status: PetStatus;
}

/** A validated addPet body: `id` absent when the service is to assign one. */
export type NewPet = Omit<Pet, 'id'> & { id?: string };

/** Most characters of a name (pet, category, tag). */
export const maxNameLength = 200;
/** Most photo URLs and most tags of one pet: the item stays far below DynamoDB's 400 KB. */
export const maxListLength = 20;
/** Most characters of one photo URL. */
export const maxUrlLength = 2000;

const petMembers = ['id', 'name', 'category', 'photoUrls', 'tags', 'status'];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A string of 1 to `max` characters (code points), well-formed Unicode. A code point is at most two UTF-16
 * units, so a longer string is refused before its code points are counted.
 */
function isText(value: unknown, max: number): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= 2 * max &&
    value.isWellFormed() &&
    [...value].length <= max
  );
}

function label(value: unknown, what: string): Label {
  if (!isObject(value)) throw invalidRequest(`${what} must be an object {"id": <int64>, "name": <string>}`);
  const unknown = unknownMembers(value, ['id', 'name']);
  if (unknown) throw invalidRequest(`${what} may only contain id and name; not allowed: ${unknown}`);
  if (!isText(value.name, maxNameLength)) {
    throw invalidRequest(`${what}.name must be a string of 1 to ${maxNameLength} characters`);
  }
  return { id: int64Member(value.id, `${what}.id`), name: value.name };
}

function list<T>(value: unknown, what: string, item: (member: unknown, at: string) => T): T[] {
  if (!Array.isArray(value) || value.length > maxListLength) {
    throw invalidRequest(`${what} must be an array of at most ${maxListLength} items`);
  }
  return value.map((member, index) => item(member, `${what}[${index}]`));
}

/**
 * Validates the pet details among the members of `body` (numbers as lib/json-integers.ts gives them), each
 * optional: `name` (1-200 characters), `category` (`{id, name}`), `photoUrls` (at most 20 strings of 1-2000
 * characters), `tags` (at most 20 `{id, name}`); other members are not looked at. addPet's body and the import
 * tool's rows (docs/contract.md "Pets", "Operator tooling").
 * @throws HttpError 400 `invalid_request` naming the first problem found.
 */
export function parsePetDetails(body: Record<string, unknown>): PetDetails {
  if (body.name !== undefined && !isText(body.name, maxNameLength)) {
    throw invalidRequest(`name must be a string of 1 to ${maxNameLength} characters`);
  }
  const photoUrls = (value: unknown) =>
    list(value, 'photoUrls', (url, at) => {
      if (!isText(url, maxUrlLength))
        throw invalidRequest(`${at} must be a string of 1 to ${maxUrlLength} characters`);
      return url;
    });
  return {
    ...(body.name === undefined ? {} : { name: body.name }),
    ...(body.category === undefined ? {} : { category: label(body.category, 'category') }),
    ...(body.photoUrls === undefined ? {} : { photoUrls: photoUrls(body.photoUrls) }),
    ...(body.tags === undefined ? {} : { tags: list(body.tags, 'tags', label) }),
  };
}

/**
 * Validates a parsed addPet body (numbers as lib/json-integers.ts gives them): an object with `name` (1-200
 * characters) and optionally `id` (int64), the other details ({@link parsePetDetails}) and `status` (PetStatus,
 * default `available`; `null` is not a status); no other member.
 * @throws HttpError 400 `invalid_request` naming the first problem found.
 */
export function parseNewPet(body: unknown): NewPet {
  if (!isObject(body)) throw invalidRequest('request body must be a JSON object such as {"name": "Rex"}');
  const unknown = unknownMembers(body, petMembers);
  if (unknown)
    throw invalidRequest(`a Pet may only contain ${petMembers.join(', ')}; not allowed: ${unknown}`);
  if (body.name === undefined)
    throw invalidRequest(`name must be a string of 1 to ${maxNameLength} characters`);
  const status = body.status === undefined ? 'available' : body.status;
  if (!isPetStatus(status)) throw invalidRequest(`status must be one of ${petStatuses.join(', ')}`);
  const { name, category, photoUrls = [], tags = [] } = parsePetDetails(body);
  return {
    ...(body.id === undefined ? {} : { id: int64Member(body.id, 'id') }),
    name: name as string,
    ...(category === undefined ? {} : { category }),
    photoUrls,
    tags,
    status,
  };
}

/** 409 `conflict`: a pet with this id exists (docs/contract.md "Pets"). */
export function petExists(id: string): HttpError {
  return new HttpError('conflict', `a pet with id ${id} exists`);
}

/** The exact JSON text of a Pet, every id written digit for digit, members in the order of {@link Pet}. */
export function petJson(pet: Pet): string {
  const labelJson = ({ id, name }: Label) => ({ id: JSON.rawJSON(id), name });
  return JSON.stringify({
    id: JSON.rawJSON(pet.id),
    ...(pet.name === undefined ? {} : { name: pet.name }),
    ...(pet.category === undefined ? {} : { category: labelJson(pet.category) }),
    photoUrls: pet.photoUrls,
    tags: pet.tags.map(labelJson),
    status: pet.status,
  });
}
