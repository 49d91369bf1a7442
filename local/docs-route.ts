/** `GET /docs` on the local server, the API reference page, outside the `/v1` API. */
import type { RequestListener } from 'node:http';
import { apiReferenceHtml } from './docs-page/api-reference.ts';

/**
 * Wraps the API's request listener with the `/docs` page (also `/docs/`, GET and HEAD).
 * @param apiBasePath the API's path on this server (`/v1`), the page's first and preselected server.
 */
export function withApiReference(api: RequestListener, apiBasePath: string): RequestListener {
  return (request, response) => {
    const { pathname } = new URL(request.url ?? '/', 'http://localhost');
    const isPage =
      (pathname === '/docs' || pathname === '/docs/') && ['GET', 'HEAD'].includes(request.method ?? '');
    if (!isPage) return api(request, response);
    request.resume();
    apiReferenceHtml({ apiBasePath }).then(
      (html) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
        response.end(request.method === 'HEAD' ? undefined : html);
      },
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('openapi.yaml could not be read\n'),
    );
  };
}
