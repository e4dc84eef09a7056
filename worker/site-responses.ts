// What every edge answer to GET, HEAD and OPTIONS passes through last (docs/static-sites.md): the site's own 404 page
// (NOT_FOUND_DOCUMENT), then CORS (CORS_ALLOW_ORIGINS, decided in shared/http/cors.ts).

import type { SiteConfig } from '../shared/config/site-config.ts';
import { type AllowedOrigins, addCorsHeaders, corsEnabled, preflightHeaders } from '../shared/http/cors.ts';
import { encodeKeyForPath } from '../shared/request/object-key.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import type { EdgeRequest } from './env.ts';

export type EdgeFetch = (request: Request, edge: EdgeRequest, ctx: ExecutionContext) => Response | Promise<Response>;

/** What the 404 page brings along: its representation. Everything else stays the 404's own. */
const PAGE_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language'];

/**
 * `app` with the site's 404 page and CORS; answers to other methods (pass-through to an HTTP origin, or 405) are left
 * untouched.
 */
export function withSiteResponses(app: EdgeFetch): EdgeFetch {
  return (request, edge, ctx) => {
    const { site } = edge.config;
    // Neither feature on (the default): nothing to do, and no extra step on the hot path.
    if (site.notFoundDocument === undefined && !corsEnabled(site.corsAllowOrigins)) return app(request, edge, ctx);
    return siteResponse(request, edge, ctx, site, app);
  };
}

async function siteResponse(
  request: Request,
  edge: EdgeRequest,
  ctx: ExecutionContext,
  site: SiteConfig,
  app: EdgeFetch,
): Promise<Response> {
  const started = Date.now();
  if (request.method === 'OPTIONS') {
    const preflight = preflightHeaders(request.headers, site.corsAllowOrigins);
    if (preflight === undefined) return app(request, edge, ctx);
    return withTierReport(new Response(null, { status: 204, headers: preflight }), 'edge', {}, Date.now() - started);
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return app(request, edge, ctx);
  let response = await app(request, edge, ctx);
  if (response.status === 404 && site.notFoundDocument !== undefined) {
    response = await withNotFoundPage(request, response, site.notFoundDocument, (page) =>
      notFoundPage(page, edge, ctx, app),
    );
  }
  return withCors(response, request.headers.get('origin'), site.corsAllowOrigins);
}

/**
 * The page read for a 404, through the same meter: what it fetched is this request's, but it is
 * no request of its own. A memory hit of the page leaves its facts on the meter, which would
 * make the record a 200 hit of the page: let go of, the record is the 404's (its status, its
 * Cache-Status, the path asked for), with the page's bytes as sent.
 */
async function notFoundPage(
  page: Request,
  edge: EdgeRequest,
  ctx: ExecutionContext,
  app: EdgeFetch,
): Promise<Response> {
  const answer = await app(page, edge, ctx);
  edge.meter.hit = undefined;
  return answer;
}

/**
 * The 404 answer with the page's body and representation headers, the page read as a client
 * would read it (so it is cached at both tiers like any object); the bare 404 when the page is
 * missing too. The status, Cache-Status, caching headers and Age stay the 404's: they describe
 * the resource asked for. Nothing of the client's request goes along (no Range, no conditions).
 */
async function withNotFoundPage(
  request: Request,
  notFound: Response,
  document: string,
  read: (page: Request) => Response | Promise<Response>,
): Promise<Response> {
  const url = new URL(request.url);
  const pagePath = `/${encodeKeyForPath(document)}`;
  if (url.pathname === pagePath) return notFound;
  const page = await read(new Request(new URL(pagePath, url), { method: request.method }));
  if (page.status !== 200) {
    await page.body?.cancel();
    return notFound;
  }
  await notFound.body?.cancel();
  const headers = new Headers(notFound.headers);
  for (const name of PAGE_HEADERS) {
    const value = page.headers.get(name);
    if (value === null) headers.delete(name);
    else headers.set(name, value);
  }
  return responseAsIs(request.method === 'HEAD' ? null : page.body, { status: 404, headers });
}

function withCors(response: Response, origin: string | null, allowed: AllowedOrigins): Response {
  if (!corsEnabled(allowed)) return response;
  // Copied: an answer may come straight from a fetch, whose headers are immutable.
  const headers = addCorsHeaders(new Headers(response.headers), origin, allowed);
  return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
}
