// What every edge answer passes through last (docs/static-sites.md, docs/rules.md "What the client gets"): a rule's
// redirect, answered before any cache is asked; for GET and HEAD a rule's single-page-app fallback or else the site's
// own 404 page (NOT_FOUND_DOCUMENT), then CORS (CORS_ALLOW_ORIGINS, decided in shared/http/cors.ts); last the rules'
// Cache-Control and header edits (worker/edge-rules.ts), on every answer to a request they match.

import type { SiteConfig } from '../shared/config/site-config.ts';
import { type AllowedOrigins, addCorsHeaders, corsEnabled, preflightHeaders } from '../shared/http/cors.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import { encodeKeyForPath } from '../shared/request/object-key.ts';
import type { ClientRules } from '../shared/rules/client-rules.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { withRuleDetail, withTierReport } from '../shared/tier/tier-headers.ts';
import { admitsDocument } from './admission.ts';
import { edgeClientRules, redirectAnswer, withClientRules } from './edge-rules.ts';
import type { EdgeRequest } from './env.ts';

export type EdgeFetch = (request: Request, edge: EdgeRequest, ctx: ExecutionContext) => Response | Promise<Response>;

/** What the 404 page brings along: its representation. Everything else stays the 404's own. */
const PAGE_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language'];
/** The Cache-Status detail a single-page app's fallback answer carries at the edge (docs/static-sites.md). */
const SPA_FALLBACK_DETAIL = 'spa-fallback';

/**
 * `app` with the rules' answers, the site's 404 page and CORS; answers to other methods (pass-through to an HTTP
 * origin, or 405) get only the rules' redirects and header edits.
 */
export function withSiteResponses(app: EdgeFetch): EdgeFetch {
  return (request, edge, ctx) => {
    const { site } = edge.config;
    const client = edgeClientRules(request, edge.config);
    // For the memory hit this may lead to (memory-hit.ts), which carries the edits in its headers.
    if (client !== undefined) edge.client = { request, rules: client };
    const siteFeatures = site.notFoundDocument !== undefined || corsEnabled(site.corsAllowOrigins);
    if (!siteFeatures && client?.redirect === undefined && client?.spaFallback === undefined) {
      // Nothing to do (the default), or only headers to edit: no extra step on the hot path, a memory hit stays
      // answered without a turn of the event loop.
      if (client === undefined) return app(request, edge, ctx);
      const answer = app(request, edge, ctx);
      if (answer instanceof Response) return edited(answer, edge, client, request.method);
      return answer.then((response) => edited(response, edge, client, request.method));
    }
    return siteResponse(request, edge, ctx, site, client, app).then((response) =>
      client === undefined ? response : edited(response, edge, client, request.method),
    );
  };
}

/** `response` with the rules' edits, unless it is a memory hit that carries them already (memory-hit.ts). */
function edited(response: Response, edge: EdgeRequest, client: ClientRules, method: string): Response {
  return response === edge.edited ? response : withClientRules(response, client, method);
}

async function siteResponse(
  request: Request,
  edge: EdgeRequest,
  ctx: ExecutionContext,
  site: SiteConfig,
  client: ClientRules | undefined,
  app: EdgeFetch,
): Promise<Response> {
  const started = Date.now();
  if (request.method === 'OPTIONS') {
    // A preflight is answered as one even where a redirect rule matches: browsers refuse a redirected preflight.
    const preflight = preflightHeaders(request.headers, site.corsAllowOrigins);
    if (preflight !== undefined) {
      return withTierReport(new Response(null, { status: 204, headers: preflight }), 'edge', {}, Date.now() - started);
    }
  }
  if (client?.redirect !== undefined) {
    // CORS too: a cross-origin fetch follows a redirect only when its answer passes the CORS check.
    return withCors(redirectAnswer(request, client.redirect, started), request, site.corsAllowOrigins);
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') return app(request, edge, ctx);
  let response = await app(request, edge, ctx);
  if (response.status === 404 && client?.spaFallback !== undefined) {
    const document = client.spaFallback.path;
    const answered = await withFallbackDocument(request, response, document, (page) =>
      documentRead(request, page, edge, ctx, app),
    );
    response = answered === response ? response : namedFallback(answered, document, edge);
  }
  if (response.status === 404 && site.notFoundDocument !== undefined) {
    response = await withNotFoundPage(request, response, `/${encodeKeyForPath(site.notFoundDocument)}`, (page) =>
      documentRead(request, page, edge, ctx, app),
    );
  }
  const answer = withCors(response, request, site.corsAllowOrigins);
  // A memory hit's copy carries the edits its headers were made with (memory-hit.ts): not made again.
  if (response === edge.edited) edge.edited = answer;
  return answer;
}

/**
 * A document read for another request's answer (the 404 page, a single-page app's fallback), through the same
 * meter: what it fetched is this request's, but it is no request of its own. A memory hit of the document leaves its
 * facts on the meter, which would make the record a hit of the document: let go of, the record is the request's (the
 * path asked for, the status and Cache-Status answered), with the document's bytes as sent. A document under
 * SIGNED_PREFIXES is read only when the request's own token admits it (worker/admission.ts); refused, it is as if
 * missing (403, never read): the request keeps its 404.
 */
async function documentRead(
  request: Request,
  page: Request,
  edge: EdgeRequest,
  ctx: ExecutionContext,
  app: EdgeFetch,
): Promise<Response> {
  if (!(await admitsDocument(request, new URL(page.url).pathname, edge))) return new Response(null, { status: 403 });
  const answer = await app(page, edge, ctx);
  edge.meter.hit = undefined;
  return answer;
}

/**
 * The fallback document's answer with `detail=spa-fallback:<document>` first in the edge's Cache-Status member (RFC
 * 9211 §2.8: "additional information not captured in other parameters"): the members are the document's (its hit or
 * miss at each tier), so without it nothing would say that another path than the one asked for answered. A memory
 * hit's copy carries its edits (memory-hit.ts): the named copy carries them as well.
 */
function namedFallback(document: Response, path: string, edge: EdgeRequest): Response {
  const named = withRuleDetail(document, 'edge', `${SPA_FALLBACK_DETAIL}:${path}`);
  if (document === edge.edited) edge.edited = named;
  return named;
}

/**
 * A single-page app's fallback: the 404 of a key that does not exist answered with the document's own 200, read as
 * a client would read it (so it is cached at both tiers like any object): its body and every header of it (its
 * type, validators, Cache-Control, Age, Cache-Status), since that is what is served. Nothing of the client's request
 * goes along: a Range or a condition on a missing key gets the whole document, 200. The 404 stays when the document
 * is missing too (the site's 404 page may then answer), and for the document itself (no loop).
 */
async function withFallbackDocument(
  request: Request,
  notFound: Response,
  documentPath: string,
  read: (page: Request) => Response | Promise<Response>,
): Promise<Response> {
  const url = new URL(request.url);
  if (normalizePath(url.pathname) === documentPath) return notFound;
  const document = await read(new Request(new URL(documentPath, url), { method: request.method }));
  if (document.status !== 200) {
    await document.body?.cancel();
    return notFound;
  }
  await notFound.body?.cancel();
  return document;
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
  pagePath: string,
  read: (page: Request) => Response | Promise<Response>,
): Promise<Response> {
  const url = new URL(request.url);
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

function withCors(response: Response, request: Request, allowed: AllowedOrigins): Response {
  if (!corsEnabled(allowed)) return response;
  // Copied: an answer may come straight from a fetch, whose headers are immutable.
  const headers = addCorsHeaders(new Headers(response.headers), request.headers.get('origin'), allowed);
  return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
}
