/** The `rel="next"` target of a `Link` header (RFC 8288 §3): docs/contract.md "Inventory semantics" (pages). */

/** One link-value: `<target>` and its parameters up to the next link-value. */
const linkValue = /<([^>]*)>((?:\s*;\s*[^;,]+)*)/g;

/**
 * The target of the link whose `rel` names `next` (a space-separated list, quoted or not, any case), or
 * undefined when `header` is null or has none.
 * @example nextLink('</v1/store/orders?limit=100&cursor=abc.def>; rel="next"') // '/v1/store/orders?limit=100&cursor=abc.def'
 */
export function nextLink(header: string | null): string | undefined {
  for (const [, target, params = ''] of header?.matchAll(linkValue) ?? []) {
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return target;
  }
  return undefined;
}
