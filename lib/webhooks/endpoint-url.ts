/** The SSRF guard of the API's webhook endpoints, as the tool's (docs/contract.md "History and events"). */
import { HttpError, invalidRequest } from '../http/errors.ts';
import {
  checkWebhookUrl,
  guardedLookup,
  type LookupFunction,
  type UrlPolicy,
  WebhookUrlRefused,
} from './url-guard.ts';

/** DNS errors that say the host has no address: the client's URL is wrong, not the service. */
const noAddress = new Set(['ENOTFOUND', 'ENODATA']);

/**
 * Checks `url` as the webhook tool's `add` does (lib/webhooks/url-guard.ts `checkWebhookUrl`: its form, then
 * every address its host resolves to) under `policy`, with `lookup` (the guarded DNS lookup unless given: tests).
 * @throws HttpError 400 `invalid_request` naming why it is refused, or that its host does not resolve; 503 when
 *   the resolver fails otherwise.
 */
export async function checkEndpointUrl(
  url: string,
  policy: UrlPolicy,
  lookup: LookupFunction = guardedLookup(policy),
): Promise<void> {
  try {
    await checkWebhookUrl(url, policy, lookup);
  } catch (error) {
    if (error instanceof WebhookUrlRefused) throw invalidRequest(`url refused: ${error.message}`);
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined && noAddress.has(code)) {
      throw invalidRequest(`url refused: ${new URL(url).hostname} does not resolve to an address`);
    }
    throw new HttpError(
      'service_unavailable',
      'the URL could not be checked: its host name did not resolve; retry',
    );
  }
}
