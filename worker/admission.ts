// The edge's first step for a protected path (SIGNED_PREFIXES, docs/private-content.md): a signed URL or the tc_token
// cookie admits the request, before the memory layer and the cache; then the token is taken off it, so that no cache
// key, shield or origin ever sees one. Paths outside the prefixes pass untouched, at the cost of one prefix test per
// reading of the path (shared/admission/protected-paths.ts), once per raw URL.

import type { ProtectedPaths } from '../shared/admission/protected-paths.ts';
import {
  mayHoldToken,
  readToken,
  type SignedToken,
  splitQuery,
  TOKEN_COOKIE,
  type TokenRead,
  tokenCookie,
  withoutTokenCookie,
  withoutTokenParams,
} from '../shared/admission/signed-token.ts';
import type { SignatureVerifier } from '../shared/admission/verifier.ts';
import type { Config } from '../shared/config/config.ts';
import { SignatureRefused } from '../shared/http/errors.ts';
import { normalizePath } from '../shared/request/canonical-path.ts';
import { rawPath } from '../shared/request/raw-path.ts';
import { BoundedMemo } from './bounded-memo.ts';
import { knownAddress } from './edge-address.ts';

/** The check of SIGNED_PREFIXES, once per isolate (env.ts builds it): the prefixes, and the verifier. */
export interface SignedAdmission {
  paths: ProtectedPaths;
  verifier: SignatureVerifier;
}

/** `request.cf` as far as admission reads it: set by Cloudflare's front (the DOM's Request type has no such field). */
type FrontFacts = { cf?: { country?: unknown } };

/**
 * `request` itself when no signature is needed (OPTIONS, a path outside SIGNED_PREFIXES, the tiers' own paths), the
 * admitted request's URL without its token (what the rest of the edge reads), or the refusal. OPTIONS passes: a CORS
 * preflight carries no cookie and never reaches an object (the edge answers it itself). A promise only when the
 * token's signature was not checked before in this isolate. `raw`: the URL judged, the request's own unless a
 * document is read for its answer (admitsDocument).
 */
export function admission(
  request: Request,
  edge: { config: Config },
  signed: SignedAdmission,
  raw: string = request.url,
): Request | string | SignatureRefused | Promise<string | SignatureRefused> {
  if (request.method === 'OPTIONS') return request;
  const seen = seenUrl(raw, edge.config, signed);
  if (seen === undefined) return request;
  // A signed URL takes precedence over the cookie: a link handed out is what its holder means.
  const read = seen.fromUrl ?? cookieToken(request.headers.get('cookie'), signed);
  if (!read.ok) return new SignatureRefused(read.reason);
  const verdict = signed.verifier.verify(read.token, {
    path: seen.path,
    // Set by Cloudflare's front on every request (a client's own is overwritten there). Each read only for a token
    // bound to it: `request.cf` is deserialised on every access, a cost a hit should not pay for nothing.
    ip: read.token.ip === undefined ? undefined : (request.headers.get('cf-connecting-ip') ?? undefined),
    country: read.token.country === undefined ? undefined : countryOf(request),
    now: Math.floor(Date.now() / 1000),
  });
  if (verdict instanceof Promise) {
    return verdict.then((reason) => (reason === undefined ? seen.url : new SignatureRefused(reason)));
  }
  return verdict === undefined ? seen.url : new SignatureRefused(verdict);
}

/**
 * Whether `request`'s own token (its signed URL's, or its cookie) admits a document read for its answer at `path` (a
 * 404 page, a single-page app's fallback: the canonical path of a document on this host): served in place of what was
 * asked, the document needs what a request for it would need, or a missing public path would answer a protected
 * document to anyone.
 */
export function admitsDocument(
  request: Request,
  path: string,
  edge: { config: Config; admission: SignedAdmission | undefined },
): boolean | Promise<boolean> {
  if (edge.admission === undefined) return true;
  const url = new URL(request.url);
  // The request's query carries its signed URL's token, if it has one; the rest of it is no part of the judgement.
  const verdict = admission(request, edge, edge.admission, `${url.origin}${path}${url.search}`);
  const admitted = (answer: Request | string | SignatureRefused): boolean => !(answer instanceof SignatureRefused);
  return verdict instanceof Promise ? verdict.then(admitted) : admitted(verdict);
}

/**
 * The folder token (`tc_prefix`) `request`'s own URL carries, never a cookie's; undefined for any other. Asked once
 * admission let the request through (the URL's reading is remembered then): what a playlist's URIs are given to
 * carry (signed-playlists.ts).
 */
export function urlFolderToken(
  request: Request,
  edge: { config: Config },
  signed: SignedAdmission,
): SignedToken | undefined {
  const read = seenUrl(request.url, edge.config, signed)?.fromUrl;
  return read?.ok === true && read.token.scope.kind === 'prefix' ? read.token : undefined;
}

/** What admission reads off a protected URL, remembered per raw URL: a player asks the same one again and again. */
interface SeenUrl {
  path: string;
  /** The token its query carries; undefined when it carries none (then the cookie is read). */
  fromUrl: TokenRead | undefined;
  /** The URL without our parameters. */
  url: string;
}

/** What admission read off protected URLs and token cookies, per isolate and configuration (bounded-memo.ts). */
interface Memo {
  urls: BoundedMemo<SeenUrl | null>;
  cookies: BoundedMemo<TokenRead>;
}

const memos = new WeakMap<SignedAdmission, Memo>();

function memoOf(signed: SignedAdmission): Memo {
  let memo = memos.get(signed);
  if (memo === undefined) {
    memo = { urls: new BoundedMemo(), cookies: new BoundedMemo() };
    memos.set(signed, memo);
  }
  return memo;
}

/**
 * The protected URL's path, token and clean form; undefined when the path needs no signature. The path is the one
 * the client wrote (`/docs/`); the key it is served from (`/docs/index.html`, with INDEX_DOCUMENT) is protected too.
 */
function seenUrl(raw: string, config: Config, signed: SignedAdmission): SeenUrl | undefined {
  const memo = memoOf(signed);
  const known = memo.urls.get(raw);
  if (known !== undefined) return known ?? undefined;
  const address = knownAddress(raw, config);
  const path = address?.admissionPath ?? normalizePath(rawPath(raw).replace(/\?.*$/, ''));
  let seen: SeenUrl | null = null;
  if (signed.paths.protects(path, address?.target.path ?? path)) {
    const query = raw.includes('?') ? raw.slice(raw.indexOf('?') + 1) : '';
    const ours = mayHoldToken(query) ? splitQuery(query).ours : [];
    seen = { path, fromUrl: ours.length > 0 ? readToken(ours) : undefined, url: withoutTokenParams(raw) };
  }
  memo.urls.set(raw, seen);
  return seen ?? undefined;
}

function countryOf(request: Request): string | undefined {
  const country = (request as Request & FrontFacts).cf?.country;
  return typeof country === 'string' ? country : undefined;
}

function cookieToken(cookie: string | null, signed: SignedAdmission): TokenRead {
  const value = tokenCookie(cookie);
  if (value === null) return { ok: false, reason: 'missing' };
  const memo = memoOf(signed);
  let read = memo.cookies.get(value);
  if (read === undefined) {
    read = readToken([...new URLSearchParams(value)]);
    memo.cookies.set(value, read);
  }
  return read;
}

/**
 * An admitted request as the app and the next hops get it: at `url` (admission's, without tc_ parameters) and without
 * the tc_token cookie; the original when nothing was taken off it. Made only when routed, never for a memory hit.
 */
export function admittedRequest(request: Request, url: string): Request {
  const cookie = request.headers.get('cookie');
  const tokenInCookie = cookie?.includes(TOKEN_COOKIE) === true;
  if (url === request.url && !tokenInCookie) return request;
  const cleaned = new Request(url, request);
  if (cookie !== null && tokenInCookie) {
    const kept = withoutTokenCookie(cookie);
    if (kept === null) cleaned.headers.delete('cookie');
    else cleaned.headers.set('cookie', kept);
  }
  return cleaned;
}
