import type { LookupAddress } from 'node:dns';
import { describe, expect, test } from 'vitest';
import { checkEndpointUrl } from '#lib/webhooks/endpoint-url.ts';
import {
  addressRefusal,
  checkWebhookUrl,
  guardedLookup,
  type LookupFunction,
  type UrlPolicy,
  urlPolicyFrom,
  WebhookUrlRefused,
} from '#lib/webhooks/url-guard.ts';

/** A DNS stand-in: each host name resolves to the addresses listed for it, others fail with ENOTFOUND. */
const zone: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'ten.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.215.14', '192.168.0.10'],
  'metadata.example.com': ['169.254.169.254'],
  'loopback6.example.com': ['::1'],
  'mapped.example.com': ['::ffff:10.0.0.1'],
  'scoped.example.com': ['93.184.215.14', 'fe80::1%eth0'],
  'empty.example.com': [],
  localhost: ['127.0.0.1', '::1'],
};

/** dns.lookup over {@link zone}: every address with `all`, else the first alone (address and family). */
const resolve = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
  const addresses = zone[hostname];
  if (!addresses) {
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return callback(error, options.all ? [] : undefined);
  }
  const found = addresses.map(
    (address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }),
  );
  if (options.all) return callback(null, found);
  callback(null, found[0]?.address, found[0]?.family);
}) as unknown as typeof import('node:dns').lookup;

const check = (url: string, policy: UrlPolicy) =>
  checkWebhookUrl(url, policy, guardedLookup(policy, resolve));

describe("createWebhookEndpoint's check (lib/webhooks/endpoint-url.ts): the guard's refusals as 400s", () => {
  const endpointCheck = (url: string, lookup = guardedLookup('public-https', resolve)) =>
    checkEndpointUrl(url, 'public-https', lookup);
  const refusal = (message: string) => ({ body: { code: 'invalid_request', message, status: 400 } });

  test.each([
    [
      'https://ten.example.com/',
      'url refused: ten.example.com resolves to a refused address: 10.1.2.3 is not a public address (private)',
    ],
    ['https://nowhere.example.com/', 'url refused: nowhere.example.com does not resolve to an address'],
    ['http://hooks.example.com/', 'url refused: http://hooks.example.com/: webhook URLs must be https'],
  ])('%s is 400: %s', async (url, message) => {
    await expect(endpointCheck(url)).rejects.toMatchObject(refusal(message));
  });

  test('allows a host that resolves to public addresses only', async () => {
    await expect(endpointCheck('https://hooks.example.com/pet-store')).resolves.toBeUndefined();
  });

  test('a resolver failing otherwise (EAI_AGAIN) is 503, not a refusal of the URL', async () => {
    const failing: LookupFunction = (_host, _options, callback) =>
      callback(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }), []);
    await expect(endpointCheck('https://hooks.example.com/', failing)).rejects.toMatchObject({
      body: {
        code: 'service_unavailable',
        message: 'the URL could not be checked: its host name did not resolve; retry',
        status: 503,
      },
    });
  });
});

/** What the guard allows deployed (public-https): https to a public address or a name. */
const allowedDeployed = [
  'https://hooks.example.com/pet-store',
  'https://93.184.215.14/hook',
  'https://[2606:4700::1111]/hook',
  'https://[::ffff:8.8.8.8]/hook',
];
/** What it allows locally (local): the same, and http or https to the loopback addresses and localhost. */
const allowedLocally = [
  'http://127.0.0.1:8080/hook',
  'https://127.0.0.1:8443/hook',
  'http://localhost:3000/hook',
  'http://[::1]:3000/hook',
  'https://hooks.example.com/pet-store',
];

describe('the SSRF guard, deployed (public-https)', () => {
  test.each(allowedDeployed)('allows %s', async (url) => {
    await expect(check(url, 'public-https')).resolves.toBeInstanceOf(URL);
  });

  test.each([
    ['http://hooks.example.com/pet-store', 'http://hooks.example.com/pet-store: webhook URLs must be https'],
    ['http://127.0.0.1:8080/hook', 'http://127.0.0.1:8080/hook: webhook URLs must be https'],
    ['http://localhost:8080/hook', 'http://localhost:8080/hook: webhook URLs must be https'],
    ['ftp://hooks.example.com/', 'ftp://hooks.example.com/: webhook URLs must be https'],
    ['https://10.0.0.1/', 'https://10.0.0.1/: 10.0.0.1 is not a public address (private)'],
    ['https://172.16.0.1/', 'https://172.16.0.1/: 172.16.0.1 is not a public address (private)'],
    ['https://192.168.1.1/', 'https://192.168.1.1/: 192.168.1.1 is not a public address (private)'],
    ['https://127.0.0.1/', 'https://127.0.0.1/: 127.0.0.1 is not a public address (loopback)'],
    ['https://127.8.9.10/', 'https://127.8.9.10/: 127.8.9.10 is not a public address (loopback)'],
    ['https://[::1]/', 'https://[::1]/: ::1 is not a public address (loopback)'],
    [
      'https://169.254.169.254/latest/meta-data/',
      'https://169.254.169.254/latest/meta-data/: 169.254.169.254 is not a public address (linkLocal)',
    ],
    [
      'https://[fd00:ec2::254]/',
      'https://[fd00:ec2::254]/: fd00:ec2::254 is not a public address (uniqueLocal)',
    ],
    ['https://[fe80::1]/', 'https://[fe80::1]/: fe80::1 is not a public address (linkLocal)'],
    ['https://100.64.0.1/', 'https://100.64.0.1/: 100.64.0.1 is not a public address (carrierGradeNat)'],
    [
      'https://[::ffff:10.0.0.1]/',
      'https://[::ffff:10.0.0.1]/: ::ffff:a00:1 is not a public address (private)',
    ],
    ['https://0.0.0.0/', 'https://0.0.0.0/: 0.0.0.0 is not a public address (unspecified)'],
    ['https://[::]/', 'https://[::]/: :: is not a public address (unspecified)'],
    ['https://192.0.0.170/', 'https://192.0.0.170/: 192.0.0.170 is not a public address (reserved)'],
    ['https://192.0.2.1/', 'https://192.0.2.1/: 192.0.2.1 is not a public address (documentation)'],
    ['https://198.19.0.1/', 'https://198.19.0.1/: 198.19.0.1 is not a public address (benchmarking)'],
    ['https://224.0.0.251/', 'https://224.0.0.251/: 224.0.0.251 is not a public address (multicast)'],
    ['https://240.0.0.1/', 'https://240.0.0.1/: 240.0.0.1 is not a public address (reserved)'],
    [
      'https://255.255.255.255/',
      'https://255.255.255.255/: 255.255.255.255 is not a public address (broadcast)',
    ],
    [
      'https://[64:ff9b::a00:1]/',
      'https://[64:ff9b::a00:1]/: 64:ff9b::a00:1 is not a public address (ipv4Translation)',
    ],
    ['https://[2001:db8::1]/', 'https://[2001:db8::1]/: 2001:db8::1 is not a public address (documentation)'],
    ['https://[2001::1]/', 'https://[2001::1]/: 2001::1 is not a public address (reserved)'],
    ['https://[2002:a00:1::]/', 'https://[2002:a00:1::]/: 2002:a00:1:: is not a public address (6to4)'],
    ['https://[ff02::1]/', 'https://[ff02::1]/: ff02::1 is not a public address (multicast)'],
    ['https://[4000::1]/', 'https://[4000::1]/: 4000::1 is not a public address (reserved)'],
    // Other spellings of an IPv4 address are read as the URL standard reads them.
    ['https://0x7f000001/', 'https://0x7f000001/: 127.0.0.1 is not a public address (loopback)'],
    ['https://2130706433/', 'https://2130706433/: 127.0.0.1 is not a public address (loopback)'],
    [
      'https://[::ffff:7f00:1]/',
      'https://[::ffff:7f00:1]/: ::ffff:7f00:1 is not a public address (loopback)',
    ],
    ['https://user:pw@hooks.example.com/', 'https://user:pw@hooks.example.com/: credentials in the URL'],
    ['hooks.example.com/x', '"hooks.example.com/x" is not an absolute URL'],
  ])('refuses %s', async (url, message) => {
    const refusal = check(url, 'public-https');
    await expect(refusal).rejects.toBeInstanceOf(WebhookUrlRefused);
    await expect(refusal).rejects.toThrow(message);
  });

  test.each([
    [
      'https://ten.example.com/',
      'ten.example.com resolves to a refused address: 10.1.2.3 is not a public address (private)',
    ],
    [
      'https://mixed.example.com/',
      'mixed.example.com resolves to a refused address: 192.168.0.10 is not a public address (private)',
    ],
    [
      'https://metadata.example.com/',
      'metadata.example.com resolves to a refused address: 169.254.169.254 is not a public address (linkLocal)',
    ],
    [
      'https://loopback6.example.com/',
      'loopback6.example.com resolves to a refused address: ::1 is not a public address (loopback)',
    ],
    [
      'https://mapped.example.com/',
      'mapped.example.com resolves to a refused address: ::ffff:10.0.0.1 is not a public address (private)',
    ],
    [
      'https://localhost/',
      'localhost resolves to a refused address: 127.0.0.1 is not a public address (loopback); ::1 is not a public address (loopback)',
    ],
  ])('refuses %s, a host name resolving to a refused address', async (url, message) => {
    const refusal = check(url, 'public-https');
    await expect(refusal).rejects.toBeInstanceOf(WebhookUrlRefused);
    await expect(refusal).rejects.toThrow(message);
  });

  test('a host name that does not resolve is an error, not allowed', async () => {
    await expect(check('https://nowhere.example.com/', 'public-https')).rejects.toThrow(
      'getaddrinfo ENOTFOUND nowhere.example.com',
    );
  });
});

describe('the SSRF guard, locally (local)', () => {
  test.each(allowedLocally)('allows %s', async (url) => {
    await expect(check(url, 'local')).resolves.toBeInstanceOf(URL);
  });

  test.each([
    [
      'http://hooks.example.com/',
      'webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)',
    ],
    ['http://127.0.0.2:8080/', 'webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)'],
    ['https://127.0.0.2:8080/', '127.0.0.2 is not a public address (loopback)'],
    ['https://10.0.0.1/', '10.0.0.1 is not a public address (private)'],
    ['https://169.254.169.254/', '169.254.169.254 is not a public address (linkLocal)'],
    [
      'https://ten.example.com/',
      'ten.example.com resolves to a refused address: 10.1.2.3 is not a public address (private)',
    ],
  ])('refuses %s', async (url, message) => {
    await expect(check(url, 'local')).rejects.toThrow(message);
  });
});

describe('WEBHOOK_URL_POLICY', () => {
  test('unset is public-https; the two policies are read; anything else is a deployment fault', () => {
    expect(urlPolicyFrom(undefined)).toBe('public-https');
    expect(urlPolicyFrom('local')).toBe('local');
    expect(urlPolicyFrom('public-https')).toBe('public-https');
    expect(() => urlPolicyFrom('open')).toThrow(
      'WEBHOOK_URL_POLICY must be one of public-https, local, not "open"',
    );
  });
});

describe('the guard at the edges', () => {
  test.each([
    ['::ffff: inside a global address is no IPv4-mapped one', '2606:4700::ffff:a00:1', undefined],
    [
      'a mapped address is judged by both its halves',
      '::ffff:192.0.2.1',
      '::ffff:192.0.2.1 is not a public address (documentation)',
    ],
    [
      'five groups after :: are no mapped address',
      '::ffff:a00:1:2',
      '::ffff:a00:1:2 is not a public address (reserved)',
    ],
    ['an address with a zone id', 'fe80::1%eth0', 'fe80::1%eth0 is not an IP address'],
    ['a host name', 'hooks.example.com', 'hooks.example.com is not an IP address'],
  ])('deployed, %s: %s', (_case, address, refusal) => {
    expect(addressRefusal(address, 'public-https')).toBe(refusal);
  });

  test('locally, loopback in any of its spellings is allowed, other loopback addresses are not', () => {
    expect(addressRefusal('::ffff:127.0.0.1', 'local')).toBeUndefined();
    expect(addressRefusal('0:0:0:0:0:0:0:1', 'local')).toBeUndefined();
    expect(addressRefusal('::ffff:127.0.0.2', 'local')).toBe(
      '::ffff:127.0.0.2 is not a public address (loopback)',
    );
    expect(addressRefusal('0:0:0:0:0:0:0:1', 'public-https')).toBe(
      '0:0:0:0:0:0:0:1 is not a public address (loopback)',
    );
  });

  test('locally, https to an IPv4-mapped loopback address is allowed; another scheme to loopback is not', async () => {
    await expect(check('https://[::ffff:127.0.0.1]:8443/hook', 'local')).resolves.toBeInstanceOf(URL);
    await expect(check('ftp://127.0.0.1/hook', 'local')).rejects.toThrow(
      'ftp://127.0.0.1/hook: webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)',
    );
  });

  test('a user name alone, or a password alone, is a credential in the URL', async () => {
    await expect(check('https://user@hooks.example.com/', 'public-https')).rejects.toThrow(
      'https://user@hooks.example.com/: credentials in the URL',
    );
    await expect(check('https://:pw@hooks.example.com/', 'public-https')).rejects.toThrow(
      'https://:pw@hooks.example.com/: credentials in the URL',
    );
  });

  test('a host name resolving to no address, or to a scoped address, is refused', async () => {
    await expect(check('https://empty.example.com/', 'public-https')).rejects.toThrow(
      new WebhookUrlRefused('empty.example.com resolves to a refused address: no address'),
    );
    await expect(check('https://scoped.example.com/', 'public-https')).rejects.toThrow(
      new WebhookUrlRefused(
        'scoped.example.com resolves to a refused address: fe80::1%eth0 is not an IP address',
      ),
    );
  });

  test("the connection's lookup: every address when asked for all, else the first with its family", async () => {
    const lookup = guardedLookup('public-https', resolve);
    const answer = (all: boolean) =>
      new Promise<unknown[]>((done) => lookup('hooks.example.com', { all }, (...args) => done(args)));
    expect(await answer(true)).toStrictEqual([
      null,
      [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    ]);
    expect(await answer(false)).toStrictEqual([null, '93.184.215.14', 4]);
  });

  test('WEBHOOK_URL_POLICY empty is public-https', () => {
    expect(urlPolicyFrom('')).toBe('public-https');
  });
});
