import { describe, expect, test } from 'vitest';
import { apiKeyDigest, generateApiKey } from '#lib/auth/api-key.ts';
import { bearerToken } from '#lib/auth/authorize.ts';

describe('Authorization header (docs/service-spec.md §5, docs/contract.md "Authentication and authorization")', () => {
  test.each(['Bearer abc', 'bearer abc', 'BEARER abc', 'Bearer   abc', 'Bearer abc '])(
    'reads the token of %j',
    (header) => {
      expect(bearerToken(header)).toBe('abc');
    },
  );

  test.each([undefined, '', 'Bearer', 'Bearer ', 'Basic abc', 'Token abc', 'abc', 'Bearer a b', 'Bearerabc'])(
    'finds no token in %j',
    (header) => {
      expect(bearerToken(header)).toBeUndefined();
    },
  );
});

describe('API keys', () => {
  test('are psk_ and 43 base64url characters (256 random bits), different each time', () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(/^psk_[A-Za-z0-9_-]{43}$/);
  });

  test('are stored as their SHA-256 digest in lowercase hex', () => {
    expect(apiKeyDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});
