/**
 * The SSRF guard of webhook URLs (docs/contract.md "History and events"): which URLs and which resolved addresses
 * an endpoint may use, checked when it is added and again at each delivery through the request's own DNS
 * lookup (so the address connected to is the address checked).
 * @module
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** `public-https` (deployed): https, public unicast addresses only; `local` also allows loopback (`npm start`). */
export type UrlPolicy = 'public-https' | 'local';

/** The policies, for parsing `WEBHOOK_URL_POLICY`. */
export const urlPolicies: readonly UrlPolicy[] = ['public-https', 'local'];

/** A URL or address the policy refuses; the message says why, in words an operator can act on. */
export class WebhookUrlRefused extends Error {
  override name = 'WebhookUrlRefused';
}

/**
 * The policy named by `value` (`WEBHOOK_URL_POLICY`); unset means `public-https`, the safe default.
 * @throws Error when the value names no policy: a deployment fault.
 */
export function urlPolicyFrom(value: string | undefined): UrlPolicy {
  if (value === undefined || value === '') return 'public-https';
  if ((urlPolicies as readonly string[]).includes(value)) return value as UrlPolicy;
  throw new Error(
    `WEBHOOK_URL_POLICY must be one of ${urlPolicies.join(', ')}, not ${JSON.stringify(value)}`,
  );
}

/** Loopback addresses the `local` policy allows, and the host name that resolves to them. */
const localAddresses = new Set(['127.0.0.1', '::1']);
const localHostName = 'localhost';

/** The URL's host without IPv6 brackets (`[::1]` -> `::1`). */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The address blocks no webhook may reach, each named as the refusal names it: every entry of IANA's IPv4 and
 * IPv6 Special-Purpose Address Registries (https://www.iana.org/assignments/iana-ipv4-special-registry/,
 * https://www.iana.org/assignments/iana-ipv6-special-registry/; RFC 6890), globally reachable or not, and the
 * multicast blocks (IANA IPv4 and IPv6 Multicast Address Space Registries: 224.0.0.0/4, RFC 5771; ff00::/8,
 * RFC 4291 2.7). An IPv6 address outside 2000::/3, the only block IANA's IPv6 Address Space registry allocates
 * as Global Unicast (https://www.iana.org/assignments/ipv6-address-space/), is refused as `reserved` too.
 * Checked in this order (255.255.255.255 is `broadcast`, not `reserved`).
 */
const specialPurposeBlocks: readonly [name: string, network: string, prefix: number][] = [
  ['unspecified', '0.0.0.0', 8], // "This network", RFC 791
  ['private', '10.0.0.0', 8], // RFC 1918
  ['carrierGradeNat', '100.64.0.0', 10], // Shared Address Space, RFC 6598
  ['loopback', '127.0.0.0', 8], // RFC 1122
  ['linkLocal', '169.254.0.0', 16], // RFC 3927; 169.254.169.254 is the instance metadata service
  ['private', '172.16.0.0', 12], // RFC 1918
  ['reserved', '192.0.0.0', 24], // IETF Protocol Assignments, RFC 6890 (DS-Lite, NAT64 discovery, ...)
  ['documentation', '192.0.2.0', 24], // TEST-NET-1, RFC 5737
  ['as112', '192.31.196.0', 24], // AS112-v4, RFC 7535
  ['amt', '192.52.193.0', 24], // AMT, RFC 7450
  ['6to4Relay', '192.88.99.0', 24], // Deprecated 6to4 Relay Anycast, RFC 7526
  ['private', '192.168.0.0', 16], // RFC 1918
  ['as112', '192.175.48.0', 24], // Direct Delegation AS112 Service, RFC 7534
  ['benchmarking', '198.18.0.0', 15], // RFC 2544
  ['documentation', '198.51.100.0', 24], // TEST-NET-2, RFC 5737
  ['documentation', '203.0.113.0', 24], // TEST-NET-3, RFC 5737
  ['multicast', '224.0.0.0', 4], // RFC 5771
  ['broadcast', '255.255.255.255', 32], // Limited Broadcast, RFC 919
  ['reserved', '240.0.0.0', 4], // Reserved, RFC 1112
  ['unspecified', '::', 128], // RFC 4291
  ['loopback', '::1', 128], // RFC 4291
  ['ipv4Translation', '64:ff9b::', 96], // IPv4-IPv6 Translation, RFC 6052
  ['ipv4Translation', '64:ff9b:1::', 48], // Local-Use IPv4/IPv6 Translation, RFC 8215
  ['discardOnly', '100::', 64], // RFC 6666
  ['dummyPrefix', '100:0:0:1::', 64], // RFC 9780
  ['reserved', '2001::', 23], // IETF Protocol Assignments, RFC 2928 (TEREDO, ORCHIDv2, AS112-v6, ...)
  ['documentation', '2001:db8::', 32], // RFC 3849
  ['6to4', '2002::', 16], // RFC 3056
  ['as112', '2620:4f:8000::', 48], // Direct Delegation AS112 Service, RFC 7534
  ['documentation', '3fff::', 20], // RFC 9637
  ['segmentRouting', '5f00::', 16], // Segment Routing (SRv6) SIDs, RFC 9602
  ['uniqueLocal', 'fc00::', 7], // RFC 4193
  ['linkLocal', 'fe80::', 10], // RFC 4291
  ['multicast', 'ff00::', 8], // RFC 4291 2.7
];

/** {@link specialPurposeBlocks} as node:net BlockLists, one per block, in the same order. */
const blockLists = specialPurposeBlocks.map(([name, network, prefix]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, isIP(network) === 4 ? 'ipv4' : 'ipv6');
  return { name, list };
});

/** IANA's Global Unicast block of IPv6 (2000::/3). */
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** True when `text` is an IPv4 or IPv6 address (no zone id). */
function isAddress(text: string): boolean {
  return isIP(text) !== 0 && !text.includes('%');
}

/** The IPv4 address of an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, `::ffff:a00:1`), else undefined. */
function mappedIpv4(address: string): string | undefined {
  const normal = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const groups = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(normal);
  if (!groups) return undefined;
  const [high, low] = [Number.parseInt(groups[1] ?? '', 16), Number.parseInt(groups[2] ?? '', 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** The name of the refused block holding `address` (an IPv4 or IPv6 address), or undefined when it is public. */
function refusedBlock(address: string): string | undefined {
  const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
  const mapped = family === 'ipv6' ? mappedIpv4(address) : undefined;
  if (mapped) return refusedBlock(mapped);
  const block = blockLists.find(({ list }) => list.check(address, family));
  if (block) return block.name;
  return family === 'ipv6' && !globalUnicast.check(address, 'ipv6') ? 'reserved' : undefined;
}

/**
 * Why `address` (an IP address as text) is refused under `policy`, or undefined when it is allowed: refused are
 * the addresses of {@link specialPurposeBlocks} (an IPv4-mapped IPv6 address judged as its IPv4 address):
 * private, loopback, link-local and the metadata address 169.254.169.254, carrier-grade NAT, unique-local,
 * unspecified, documentation, multicast, reserved; under `local` 127.0.0.1 and ::1 are allowed.
 */
export function addressRefusal(address: string, policy: UrlPolicy): string | undefined {
  if (!isAddress(address)) return `${address} is not an IP address`;
  if (policy === 'local' && (localAddresses.has(address) || localAddresses.has(mappedIpv4OrSelf(address))))
    return undefined;
  const block = refusedBlock(address);
  return block === undefined ? undefined : `${address} is not a public address (${block})`;
}

/** `address` in its normal form: an IPv4-mapped IPv6 address as its IPv4 address, other IPv6 compressed. */
function mappedIpv4OrSelf(address: string): string {
  return isIP(address) === 6
    ? (mappedIpv4(address) ?? new URL(`http://[${address}]/`).hostname.slice(1, -1))
    : address;
}

/**
 * Checks the URL's form under `policy`: absolute `https:` (also `http:` under `local`, to 127.0.0.1, ::1 or
 * localhost only), no credentials in it, and a host that is not a refused IP address.
 * @returns the parsed URL.
 * @throws WebhookUrlRefused naming the reason.
 */
export function checkUrlForm(text: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlRefused(`${JSON.stringify(text)} is not an absolute URL`);
  }
  const host = hostOf(url);
  const local = policy === 'local' && (host === localHostName || localAddresses.has(host));
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && local)) {
    throw new WebhookUrlRefused(
      policy === 'local'
        ? `${text}: webhook URLs must be https (or http to 127.0.0.1, ::1 or localhost locally)`
        : `${text}: webhook URLs must be https`,
    );
  }
  if (url.username || url.password) throw new WebhookUrlRefused(`${text}: credentials in the URL`);
  if (isAddress(host)) {
    const refusal = addressRefusal(host, policy);
    if (refusal) throw new WebhookUrlRefused(`${text}: ${refusal}`);
  }
  return url;
}

/** The `lookup` option of node:http(s) `request` and node:net `connect`: dns.lookup's callback shape. */
export type LookupFunction = (
  hostname: string,
  options: LookupOptions,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
) => void;

/**
 * A DNS lookup for outgoing requests that resolves every address of the host and fails (with a
 * {@link WebhookUrlRefused}) when any of them is refused under `policy`, so a connection can only reach an
 * address that was checked. `resolve` is dns.lookup unless given (tests).
 */
export function guardedLookup(policy: UrlPolicy, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, []);
      const refusals = addresses.map((a) => addressRefusal(a.address, policy)).filter((r) => r !== undefined);
      if (addresses.length === 0) refusals.push('no address');
      if (refusals.length > 0) {
        return callback(
          new WebhookUrlRefused(`${hostname} resolves to a refused address: ${refusals.join('; ')}`),
          [],
        );
      }
      if (options.all) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Checks a webhook URL the way a delivery will (the tool's `add`): its form, then every address its host
 * resolves to.
 * @returns the parsed URL.
 * @throws WebhookUrlRefused naming the reason; a DNS error when the host does not resolve.
 */
export async function checkWebhookUrl(
  text: string,
  policy: UrlPolicy,
  lookup: LookupFunction = guardedLookup(policy),
): Promise<URL> {
  const url = checkUrlForm(text, policy);
  const host = hostOf(url);
  if (isAddress(host)) return url;
  await new Promise<void>((resolve, reject) =>
    lookup(host, { all: true }, (error) => (error ? reject(error) : resolve())),
  );
  return url;
}
