/**
 * The Pet of addPet and the pet details of the import tool's rows (docs/contract.md "Pets"): what a body must
 * be, the 400 message that names its first problem, the Pet it becomes, and the Pet's exact JSON text.
 */
import { describe, expect, test } from 'vitest';
import { exactIntegers } from '#lib/json-integers.ts';
import { parseNewPet, parsePetDetails, petExists, petJson } from '#lib/pets/pet.ts';
import { thrownErrorBody } from '#test/support/thrown-error.ts';

/** `text` parsed as the addPet handler parses a body: numbers as exact integers (lib/json-integers.ts). */
const parsed = (text: string): unknown => JSON.parse(text, exactIntegers);

/** The 400 `invalid_request` body with `message`. */
const invalid = (message: string) => ({ code: 'invalid_request', message, status: 400 });

const nameRule = invalid('name must be a string of 1 to 200 characters');
const int64Rule = (what: string) =>
  invalid(`${what} must be an integer from -9223372036854775808 to 9223372036854775807`);

/** A string of `count` code points, each two UTF-16 units (U+1F415). */
const astral = (count: number) => '🐕'.repeat(count);

describe('parseNewPet (docs/contract.md "Pets": addPet)', () => {
  test('a name alone is an available pet with no id, no category, no photos and no tags', () => {
    expect(parseNewPet(parsed('{"name": "Rex"}'))).toStrictEqual({
      name: 'Rex',
      photoUrls: [],
      tags: [],
      status: 'available',
    });
  });

  test('keeps every member given, ids as canonical decimal text digit for digit', () => {
    const body =
      '{"id": 9223372036854775807, "name": "Rex", "category": {"id": -9223372036854775808, "name": "Dogs"},' +
      ' "photoUrls": ["https://example.com/a.jpg", "b"], "tags": [{"id": 9007199254740993, "name": "friendly"},' +
      ' {"id": 70e-1, "name": "seven"}], "status": "sold"}';
    expect(parseNewPet(parsed(body))).toStrictEqual({
      id: '9223372036854775807',
      name: 'Rex',
      category: { id: '-9223372036854775808', name: 'Dogs' },
      photoUrls: ['https://example.com/a.jpg', 'b'],
      tags: [
        { id: '9007199254740993', name: 'friendly' },
        { id: '7', name: 'seven' },
      ],
      status: 'sold',
    });
  });

  test.each([
    ['available', '{"name": "Rex", "status": "available", "id": 0}'],
    ['pending', '{"name": "Rex", "status": "pending", "id": 0}'],
  ])('takes the status %s', (status, body) => {
    expect(parseNewPet(parsed(body))).toStrictEqual({
      id: '0',
      name: 'Rex',
      photoUrls: [],
      tags: [],
      status,
    });
  });

  test.each([
    ['null', 'request body must be a JSON object such as {"name": "Rex"}'],
    ['[{"name": "Rex"}]', 'request body must be a JSON object such as {"name": "Rex"}'],
    ['"Rex"', 'request body must be a JSON object such as {"name": "Rex"}'],
    [
      '{"name": "Rex", "owner": "me", "age": 3}',
      'a Pet may only contain id, name, category, photoUrls, tags, status; not allowed: "owner", "age"',
    ],
    ['{"status": "available"}', nameRule.message],
    ['{"name": null}', nameRule.message],
    ['{"name": 5}', nameRule.message],
    ['{"name": "Rex", "status": null}', 'status must be one of available, pending, sold'],
    ['{"name": "Rex", "status": "lost"}', 'status must be one of available, pending, sold'],
    ['{"name": "", "status": "lost"}', 'status must be one of available, pending, sold'],
    ['{"name": "Rex", "id": "7"}', int64Rule('id').message],
    ['{"name": "Rex", "id": 1.5}', int64Rule('id').message],
    ['{"name": "Rex", "id": null}', int64Rule('id').message],
  ])('refuses %s with 400 naming its first problem', (body, message) => {
    expect(thrownErrorBody(() => parseNewPet(parsed(body)))).toStrictEqual(invalid(message));
  });
});

describe('parsePetDetails (docs/contract.md "Pets", "Operator tooling")', () => {
  test('takes no member for a detail that is absent, and looks at no other member', () => {
    expect(parsePetDetails({})).toStrictEqual({});
    expect(parsePetDetails({ petId: 'x', quantity: -1, status: 'lost' })).toStrictEqual({});
  });

  test('takes each detail given, empty lists as given', () => {
    expect(
      parsePetDetails(parsed('{"name": "Rex", "photoUrls": [], "tags": []}') as Record<string, unknown>),
    ).toStrictEqual({
      name: 'Rex',
      photoUrls: [],
      tags: [],
    });
    expect(
      parsePetDetails(parsed('{"category": {"id": 1, "name": "Dogs"}}') as Record<string, unknown>),
    ).toStrictEqual({
      category: { id: '1', name: 'Dogs' },
    });
  });

  test('a name, category or tag name of 200 code points is accepted, of 201 refused', () => {
    for (const name of ['x'.repeat(200), astral(200)]) {
      const body = { name, category: { id: 1, name }, tags: [{ id: 2, name }] };
      expect(parsePetDetails(body)).toStrictEqual({
        name,
        category: { id: '1', name },
        tags: [{ id: '2', name }],
      });
    }
    for (const name of ['x'.repeat(201), astral(201), `${astral(199)}xx`]) {
      expect(thrownErrorBody(() => parsePetDetails({ name }))).toStrictEqual(nameRule);
      expect(thrownErrorBody(() => parsePetDetails({ category: { id: 1, name } }))).toStrictEqual(
        invalid('category.name must be a string of 1 to 200 characters'),
      );
      expect(
        thrownErrorBody(() =>
          parsePetDetails({
            tags: [
              { id: 1, name: 'a' },
              { id: 2, name },
            ],
          }),
        ),
      ).toStrictEqual(invalid('tags[1].name must be a string of 1 to 200 characters'));
    }
  });

  test('a photo URL of 2000 code points is accepted, of 2001 refused', () => {
    for (const url of ['u'.repeat(2000), astral(2000)]) {
      expect(parsePetDetails({ photoUrls: ['a', url] })).toStrictEqual({ photoUrls: ['a', url] });
    }
    for (const url of ['u'.repeat(2001), astral(2001)]) {
      expect(thrownErrorBody(() => parsePetDetails({ photoUrls: ['a', url] }))).toStrictEqual(
        invalid('photoUrls[1] must be a string of 1 to 2000 characters'),
      );
    }
  });

  test('20 photo URLs and 20 tags are accepted, 21 refused', () => {
    const photoUrls = Array.from({ length: 20 }, (_, index) => `p${index}`);
    const tags = Array.from({ length: 20 }, (_, index) => ({ id: index, name: `t${index}` }));
    expect(parsePetDetails({ photoUrls, tags })).toStrictEqual({
      photoUrls,
      tags: tags.map(({ id, name }) => ({ id: String(id), name })),
    });
    expect(thrownErrorBody(() => parsePetDetails({ photoUrls: [...photoUrls, 'p20'] }))).toStrictEqual(
      invalid('photoUrls must be an array of at most 20 items'),
    );
    expect(
      thrownErrorBody(() => parsePetDetails({ tags: [...tags, { id: 20, name: 't20' }] })),
    ).toStrictEqual(invalid('tags must be an array of at most 20 items'));
  });

  test.each([
    ['{"name": ""}', nameRule.message],
    ['{"name": "\\ud800"}', nameRule.message],
    ['{"name": "a\\udc00b"}', nameRule.message],
    ['{"name": ["Rex"]}', nameRule.message],
    ['{"photoUrls": "a"}', 'photoUrls must be an array of at most 20 items'],
    ['{"photoUrls": {"0": "a"}}', 'photoUrls must be an array of at most 20 items'],
    ['{"photoUrls": null}', 'photoUrls must be an array of at most 20 items'],
    ['{"photoUrls": ["a", ""]}', 'photoUrls[1] must be a string of 1 to 2000 characters'],
    ['{"photoUrls": [7]}', 'photoUrls[0] must be a string of 1 to 2000 characters'],
    ['{"photoUrls": ["\\udfff"]}', 'photoUrls[0] must be a string of 1 to 2000 characters'],
    ['{"tags": {"id": 1, "name": "a"}}', 'tags must be an array of at most 20 items'],
    ['{"tags": [null]}', 'tags[0] must be an object {"id": <int64>, "name": <string>}'],
    ['{"tags": [[1, "a"]]}', 'tags[0] must be an object {"id": <int64>, "name": <string>}'],
    ['{"tags": ["a"]}', 'tags[0] must be an object {"id": <int64>, "name": <string>}'],
    ['{"tags": [{"id": 1.5, "name": "a"}]}', int64Rule('tags[0].id').message],
    ['{"tags": [{"name": "a"}]}', int64Rule('tags[0].id').message],
    [
      '{"tags": [{"id": 1, "name": "a", "colour": "red"}]}',
      'tags[0] may only contain id and name; not allowed: "colour"',
    ],
    ['{"category": null}', 'category must be an object {"id": <int64>, "name": <string>}'],
    ['{"category": []}', 'category must be an object {"id": <int64>, "name": <string>}'],
    ['{"category": {"id": 1}}', 'category.name must be a string of 1 to 200 characters'],
    ['{"category": {"id": 1, "name": ""}}', 'category.name must be a string of 1 to 200 characters'],
    ['{"category": {"id": 9223372036854775808, "name": "a"}}', int64Rule('category.id').message],
    [
      '{"category": {"id": 1, "name": "a", "x": 1}}',
      'category may only contain id and name; not allowed: "x"',
    ],
  ])('refuses %s with 400 naming its first problem', (body, message) => {
    expect(thrownErrorBody(() => parsePetDetails(parsed(body) as Record<string, unknown>))).toStrictEqual(
      invalid(message),
    );
  });
});

describe('petExists', () => {
  test('is the 409 conflict naming the id', () => {
    expect(petExists('-9223372036854775808').body).toStrictEqual({
      code: 'conflict',
      message: 'a pet with id -9223372036854775808 exists',
      status: 409,
    });
  });
});

describe('petJson', () => {
  test('writes every member in the order of Pet, each id digit for digit', () => {
    const pet = {
      id: '9223372036854775807',
      name: 'Rex',
      category: { id: '-9223372036854775808', name: 'Dogs' },
      photoUrls: ['a', 'b'],
      tags: [{ id: '9007199254740993', name: 'friendly' }],
      status: 'pending' as const,
    };
    expect(petJson(pet)).toBe(
      '{"id":9223372036854775807,"name":"Rex","category":{"id":-9223372036854775808,"name":"Dogs"},' +
        '"photoUrls":["a","b"],"tags":[{"id":9007199254740993,"name":"friendly"}],"status":"pending"}',
    );
  });

  test('leaves out a name and a category the pet does not have', () => {
    expect(petJson({ id: '5', photoUrls: [], tags: [], status: 'sold' })).toBe(
      '{"id":5,"photoUrls":[],"tags":[],"status":"sold"}',
    );
  });
});
