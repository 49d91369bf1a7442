/**
 * The SSRF guard of webhook URLs (docs/contract.md "History and events"): which URLs and which resolved addresses
 * a subscription may use, checked when it is added and again at each delivery through the request's own DNS
 * lookup (so the address connected to is the address checked).
 * @module
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

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
 * Why `address` (an IP address as text) is refused under `policy`, or undefined when it is allowed: allowed
 * are addresses whose ipaddr.js range is `unicast` (an IPv4-mapped IPv6 address judged as its IPv4 address),
 * and under `local` also 127.0.0.1 and ::1. Anything else (private, loopback, link-local and the metadata
 * address 169.254.169.254, carrier-grade NAT, unique-local, unspecified, reserved) is refused.
 */
export function addressRefusal(address: string, policy: UrlPolicy): string | undefined {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(address);
  const normal = parsed.toString();
  if (policy === 'local' && localAddresses.has(normal)) return undefined;
  const range = parsed.range();
  return range === 'unicast' ? undefined : `${address} is not a public address (${range})`;
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
  if (ipaddr.isValid(host)) {
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
  if (ipaddr.isValid(host)) return url;
  await new Promise<void>((resolve, reject) =>
    lookup(host, { all: true }, (error) => (error ? reject(error) : resolve())),
  );
  return url;
}
