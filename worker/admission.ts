// The edge's first step for a protected path (SIGNED_PREFIXES, docs/private-content.md): a signed URL or the tc_token
// cookie admits the request, before the memory layer and the cache; then the token is taken off it, so that no cache
// key, shield or origin ever sees one. Paths outside the prefixes pass untouched, at the cost of one prefix test.

import {
  mayHoldToken,
  readToken,
  splitQuery,
  TOKEN_COOKIE,
  tokenCookie,
  withoutTokenCookie,
  withoutTokenParams,
} from '../shared/admission/signed-token.ts';
import { SignatureRefused } from '../shared/http/errors.ts';
import { rawPath } from '../shared/observe/observed.ts';
import { normalizePath } from '../shared/request/request-target.ts';
import { knownAddress } from './edge-address.ts';
import type { EdgeRequest, SignedAdmission } from './env.ts';

/** An admitted request: the URL the rest of the edge reads (the token gone), and the request to route if it must. */
export interface Admitted {
  url: string;
  /** The request as the app and the next hops get it: the original when nothing was taken off it. */
  request(): Request;
}

/**
 * `request` itself when no signature is needed (OPTIONS, a path outside SIGNED_PREFIXES, the tiers' own paths), the
 * admitted request without its token, or the refusal. OPTIONS passes: a CORS preflight carries no cookie and never
 * reaches an object (the edge answers it itself). A promise only when the token's signature was not checked before
 * in this isolate.
 */
export function admission(
  request: Request,
  edge: EdgeRequest,
  signed: SignedAdmission,
): Request | Admitted | SignatureRefused | Promise<Admitted | SignatureRefused> {
  if (request.method === 'OPTIONS') return request;
  const raw = request.url;
  const path = knownAddress(raw, edge.config)?.admissionPath ?? normalizePath(rawPath(raw).replace(/\?.*$/, ''));
  if (!signed.paths.protects(path)) return request;
  const query = raw.includes('?') ? raw.slice(raw.indexOf('?') + 1) : '';
  // A signed URL takes precedence over the cookie: a link handed out is what its holder means.
  const fromUrl = mayHoldToken(query) ? splitQuery(query).ours : [];
  const cookie = fromUrl.length > 0 ? null : tokenCookie(request.headers.get('cookie'));
  const read = readToken(fromUrl.length > 0 ? fromUrl : [...new URLSearchParams(cookie ?? '')]);
  if (!read.ok) return new SignatureRefused(read.reason);
  const verdict = signed.verifier.verify(read.token, {
    path,
    // Set by Cloudflare's front on every request (a client's own is overwritten there).
    ip: request.headers.get('cf-connecting-ip') ?? undefined,
    country: request.cf?.country as string | undefined,
    now: Math.floor(Date.now() / 1000),
  });
  const admitted = (reason: string | undefined): Admitted | SignatureRefused =>
    reason === undefined ? withoutToken(request, raw) : new SignatureRefused(reason);
  return verdict instanceof Promise ? verdict.then(admitted) : admitted(verdict);
}

/** The request without tc_ parameters and the tc_token cookie; a new Request only when routed, never for a hit. */
function withoutToken(request: Request, raw: string): Admitted {
  const url = withoutTokenParams(raw);
  return {
    url,
    request() {
      const cookie = request.headers.get('cookie');
      const tokenInCookie = cookie?.includes(TOKEN_COOKIE) === true;
      if (url === raw && !tokenInCookie) return request;
      const cleaned = new Request(url, request);
      if (cookie !== null && tokenInCookie) {
        const kept = withoutTokenCookie(cookie);
        if (kept === null) cleaned.headers.delete('cookie');
        else cleaned.headers.set('cookie', kept);
      }
      return cleaned;
    },
  };
}
