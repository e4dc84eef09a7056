// What every edge answer passes through last (docs/static-sites.md, docs/rules.md "What the client gets"): a rule's
// redirect, answered before any cache is asked; for GET and HEAD, a 404 answered by the redirect to its folder
// (FOLDER_REDIRECT), else a rule's single-page-app fallback, else the site's own 404 page (NOT_FOUND_DOCUMENT, or
// NOT_FOUND_DOCUMENTS' for its prefix), and a 5xx of ours by the site's error page (ERROR_DOCUMENT); then CORS
// (CORS_ALLOW_ORIGINS, decided in shared/http/cors.ts); last the rules' Cache-Control and header edits
// (worker/edge-rules.ts), on every answer to a request they match. Which document stands in for what is decided in
// shared/request/site-documents.ts; each is read here as a client would read it.

import type { Config } from '../shared/config/config.ts';
import { originTraits } from '../shared/config/origin-traits.ts';
import type { SiteConfig } from '../shared/config/site-config.ts';
import { type AllowedOrigins, addCorsHeaders, corsEnabled, preflightHeaders } from '../shared/http/cors.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import { encodeKeyForPath } from '../shared/request/object-key.ts';
import { isReserved } from '../shared/request/reserved-paths.ts';
import {
  folderLocation,
  folderOf,
  isOwnServerError,
  type NotFoundPage,
  notFoundPageFor,
  notFoundPages,
  redirectCacheControl,
} from '../shared/request/site-documents.ts';
import type { ClientRules } from '../shared/rules/client-rules.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { withRuleDetail, withTierReport } from '../shared/tier/tier-headers.ts';
import { admitsDocument } from './admission.ts';
import { forwardedPath, knownAddress } from './edge-address.ts';
import { edgeClientRules, redirectAnswer, redirectResponse, withClientRules } from './edge-rules.ts';
import type { EdgeRequest } from './env.ts';

export type EdgeFetch = (request: Request, edge: EdgeRequest, ctx: ExecutionContext) => Response | Promise<Response>;

/** What a 404 or error page brings along: its representation. Everything else stays the answer's own. */
const PAGE_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language'];
/** What the folder redirect keeps of the 404 it stands for: its freshness, its age, its report. */
const REDIRECT_KEEPS = ['cache-control', 'expires', 'age', 'cache-status', 'server-timing'];
/** The Cache-Status detail a single-page app's fallback answer carries at the edge (docs/static-sites.md). */
const SPA_FALLBACK_DETAIL = 'spa-fallback';
/** The Cache-Status detail of the folder redirect at the edge (docs/static-sites.md). */
const FOLDER_REDIRECT_DETAIL = 'folder-redirect';

/**
 * `app` with the rules' answers, the site's documents and CORS; answers to other methods (pass-through to an HTTP
 * origin, or 405) get only the rules' redirects and header edits.
 */
export function withSiteResponses(app: EdgeFetch): EdgeFetch {
  return (request, edge, ctx) => {
    const { site } = edge.config;
    const client = edgeClientRules(request, edge.config);
    // For the memory hit this may lead to (memory-hit.ts), which carries the edits in its headers.
    if (client !== undefined) edge.client = { request, rules: client };
    const finish = (response: Response): Response =>
      client === undefined ? response : edited(response, edge, client, request.method);
    if (corsEnabled(site.corsAllowOrigins) || client?.redirect !== undefined || client?.spaFallback !== undefined)
      return siteResponse(request, edge, ctx, site, client, app).then(finish);
    // Nothing to do (the default), only headers to edit, or a document for a 404 or a 5xx: no extra step on the hot
    // path, a memory hit (a whole 200, memory-cache.ts) stays answered without a turn of the event loop.
    const documents = answersWithDocuments(site);
    const then = (response: Response): Response | Promise<Response> =>
      documents && mayTakeDocument(request, response)
        ? withDocuments(request, response, edge, ctx, client, app).then(finish)
        : finish(response);
    const answer = app(request, edge, ctx);
    return answer instanceof Response ? then(answer) : answer.then(then);
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
  const answered = await app(request, edge, ctx);
  const response = mayTakeDocument(request, answered)
    ? await withDocuments(request, answered, edge, ctx, client, app)
    : answered;
  const answer = withCors(response, request, site.corsAllowOrigins);
  // A memory hit's copy carries the edits its headers were made with (memory-hit.ts): not made again.
  if (response === edge.edited) edge.edited = answer;
  return answer;
}

/** Whether a document may stand in for `response`: a 404 or a 5xx to a GET or HEAD. */
function mayTakeDocument(request: Request, response: Response): boolean {
  const { status } = response;
  return (
    (status === 404 || (status >= 500 && status <= 599)) && (request.method === 'GET' || request.method === 'HEAD')
  );
}

/**
 * `response` (a 404 or a 5xx to a GET or HEAD) as the site's documents answer it: a 404 by its folder's redirect, a
 * rule's fallback or its 404 page (notFoundAnswer), a 5xx of ours by the error page; as it is where none does.
 */
function withDocuments(
  request: Request,
  response: Response,
  edge: EdgeRequest,
  ctx: ExecutionContext,
  client: ClientRules | undefined,
  app: EdgeFetch,
): Promise<Response> {
  const { site } = edge.config;
  const read = (page: Request): Promise<Response> => documentRead(request, page, edge, ctx, app);
  if (response.status === 404) return notFoundAnswer(request, response, edge, client, read);
  if (site.errorDocument === undefined || !ownServerError(request, response, edge.config))
    return Promise.resolve(response);
  return withPage(request, response, `/${encodeKeyForPath(site.errorDocument)}`, read);
}

/** Whether any of the site's documents may answer in place of the tiers' answer. */
function answersWithDocuments(site: SiteConfig): boolean {
  return site.notFoundDocuments.length > 0 || site.errorDocument !== undefined || site.folderRedirect !== undefined;
}

/**
 * A 404, answered by the first that can: the redirect to the folder the path names (FOLDER_REDIRECT), a rule's
 * single-page-app fallback, the 404 page of its longest prefix; else the 404 as it is. The folder comes first: where
 * it has a page, the path names a folder that exists, not a route of the app nor a missing page.
 */
async function notFoundAnswer(
  request: Request,
  notFound: Response,
  edge: EdgeRequest,
  client: ClientRules | undefined,
  read: (page: Request) => Promise<Response>,
): Promise<Response> {
  const { config } = edge;
  const redirect = await folderRedirect(request, notFound, config, read);
  if (redirect !== undefined) return redirect;
  if (client?.spaFallback !== undefined) {
    const document = client.spaFallback.path;
    const answered = await withFallbackDocument(request, notFound, document, read);
    if (answered !== notFound) return namedFallback(answered, document, edge);
  }
  const pages = notFoundPagesOf(config);
  if (pages.length === 0) return notFound;
  const path = knownAddress(request.url, config)?.target.path ?? normalizePath(new URL(request.url).pathname);
  const page = notFoundPageFor(path, pages);
  return page === undefined ? notFound : withPage(request, notFound, `/${encodeKeyForPath(page)}`, read);
}

/**
 * The redirect of `/dir` to `/dir/` (FOLDER_REDIRECT) when `/dir/` is there (the folder's index document, read as a
 * client would read it: cached at both tiers, purged as any object, and only when the request's own token admits it,
 * so that a path outside a signed prefix tells nothing of one inside it); undefined when it is off, when the path
 * names no folder without its slash, or when the folder has no page.
 *
 * Nothing of it is stored: it is made again from the two answers it depends on, each an entry of its own (`dir`'s
 * 404, `dir/index.html`), so a purge of either reaches it at once. It keeps the 404's freshness, Age and Cache-Status
 * (site-documents.ts redirectCacheControl), its edge member naming it (`detail=folder-redirect`).
 */
async function folderRedirect(
  request: Request,
  notFound: Response,
  config: Config,
  read: (page: Request) => Promise<Response>,
): Promise<Response | undefined> {
  const status = config.site.folderRedirect;
  if (status === undefined || ownPath(request, config)) return undefined;
  const url = new URL(request.url);
  const path = knownAddress(request.url, config)?.admissionPath;
  const folder = path === undefined ? undefined : folderOf(path);
  if (folder === undefined) return undefined;
  const index = await read(new Request(new URL(folder, url), { method: request.method }));
  await index.body?.cancel();
  if (index.status !== 200) return undefined;
  await notFound.body?.cancel();
  const answer = redirectResponse(status, folderLocation(folder, url.search), request.method);
  for (const name of REDIRECT_KEEPS) {
    const value = notFound.headers.get(name);
    if (value !== null) answer.headers.set(name, value);
  }
  const freshness = redirectCacheControl(
    { cacheControl: notFound.headers.get('cache-control'), expires: notFound.headers.get('expires') },
    config.negativeTtl,
  );
  if (freshness !== undefined) answer.headers.set('cache-control', freshness);
  return withRuleDetail(answer, 'edge', FOLDER_REDIRECT_DETAIL);
}

/**
 * Whether `response` is a 5xx of ours that ERROR_DOCUMENT answers (site-documents.ts isOwnServerError): never on the
 * tiers' own paths, whose answers are the operator's tools' (stats, health), not the site's.
 */
function ownServerError(request: Request, response: Response, config: Config): boolean {
  const own = isOwnServerError(
    response.status,
    response.headers.get('cache-status'),
    originTraits(config).passesItsAnswers,
  );
  return own && !ownPath(request, config);
}

/** Whether a request is for the tiers' own paths (/__tiercache/…, in any spelling). */
function ownPath(request: Request, config: Config): boolean {
  const url = new URL(request.url);
  return isReserved(normalizePath(url.pathname), forwardedPath(url, config));
}

/** The 404 pages of a configuration, their prefixes canonical (site-documents.ts), once per configuration. */
function notFoundPagesOf(config: Config): readonly NotFoundPage[] {
  let pages = canonicalPages.get(config);
  if (pages === undefined) {
    pages = notFoundPages(config.site.notFoundDocuments, originTraits(config).kind);
    canonicalPages.set(config, pages);
  }
  return pages;
}

const canonicalPages = new WeakMap<Config, readonly NotFoundPage[]>();

/**
 * A document read for another request's answer (a 404 page, a single-page app's fallback, the folder's index behind
 * the folder redirect, the error page), through the same meter: what it fetched is this request's, but it is no
 * request of its own. A memory hit of the document leaves its facts on the meter, which would make the record a hit of
 * the document: let go of, the record is the request's (the path asked for, the status and Cache-Status answered),
 * with the document's bytes as sent. A document under SIGNED_PREFIXES is read only when the request's own token admits
 * it (worker/admission.ts); refused, it is as if missing (403, never read): the request keeps its 404 (or its 5xx).
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
 * The answer (a 404, a 5xx of ours) with the page's body and representation headers, the page read as a client would
 * read it (so it is cached at both tiers like any object); the bare answer when the page is missing too (or cannot be
 * read: the origin is down and no tier holds it). The status, Cache-Status, caching headers, Age and Retry-After stay
 * the answer's: they describe the resource asked for. Nothing of the client's request goes along (no Range, no
 * conditions).
 */
async function withPage(
  request: Request,
  answer: Response,
  pagePath: string,
  read: (page: Request) => Response | Promise<Response>,
): Promise<Response> {
  const url = new URL(request.url);
  if (url.pathname === pagePath) return answer;
  const page = await read(new Request(new URL(pagePath, url), { method: request.method }));
  if (page.status !== 200) {
    await page.body?.cancel();
    return answer;
  }
  await answer.body?.cancel();
  const headers = new Headers(answer.headers);
  for (const name of PAGE_HEADERS) {
    const value = page.headers.get(name);
    if (value === null) headers.delete(name);
    else headers.set(name, value);
  }
  return responseAsIs(request.method === 'HEAD' ? null : page.body, { status: answer.status, headers });
}

function withCors(response: Response, request: Request, allowed: AllowedOrigins): Response {
  if (!corsEnabled(allowed)) return response;
  // Copied: an answer may come straight from a fetch, whose headers are immutable.
  const headers = addCorsHeaders(new Headers(response.headers), request.headers.get('origin'), allowed);
  return responseAsIs(response.body, { status: response.status, statusText: response.statusText, headers });
}
