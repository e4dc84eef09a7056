// The signed token's format (docs/private-content.md): its parameters, the canonical message its signature covers,
// and reading it off a URL's query or the tc_token cookie. Pure: the HMAC is signer.ts's and verifier.ts's.

/** What a token grants: one path, or every path under a folder (an HLS rendition's segments). */
export type Scope = { kind: 'path' | 'prefix'; path: string };

export interface SignedToken {
  keyId: string;
  scope: Scope;
  /** Unix seconds: not valid from this second on. */
  expires: number;
  /** Unix seconds: not valid before this second; undefined = from the start. */
  notBefore: number | undefined;
  /** The client address it is bound to (CF-Connecting-IP), as written; undefined = any. */
  ip: string | undefined;
  /** The ISO 3166-1 alpha-2 country it is bound to (request.cf.country), upper case; undefined = any. */
  country: string | undefined;
  /** The HMAC-SHA-256 of canonicalMessage, 32 bytes. */
  signature: Uint8Array;
}

/** A token read, or why none could be: `missing` (no tc_ parameter at all) or `malformed`. */
export type TokenRead = { ok: true; token: SignedToken } | { ok: false; reason: 'missing' | 'malformed' };

/** The parameters, in the order the signer writes them (the signature last). */
const PARAMS = {
  path: 'tc_path',
  prefix: 'tc_prefix',
  expires: 'tc_exp',
  notBefore: 'tc_nbf',
  keyId: 'tc_kid',
  ip: 'tc_ip',
  country: 'tc_cc',
  signature: 'tc_sig',
} as const;
/** Every parameter of ours starts so; any other name starting so is refused (it is not ours to guess). */
const PARAM_PREFIX = 'tc_';
/** The cookie form: the same parameters as one URL-encoded query string (cookie-octets allow `=`, `&`, `%`). */
export const TOKEN_COOKIE = 'tc_token';
/** The first line of every signed message: a new format gets a new one, so no old signature reads as new. */
const MESSAGE_VERSION = 'tiercache-token-v1';

const KNOWN = new Set<string>(Object.values(PARAMS));
const UNIX_SECONDS = /^\d{1,12}$/;
const KEY_ID = /^[A-Za-z0-9._~-]{1,64}$/;
/** A path as a URL carries it: no control characters, spaces, query or fragment. */
const SCOPE_PATH = /^\/[^\u0000-\u0020\u007F?#]{0,2047}$/;
const IP = /^[0-9A-Fa-f:.]{2,45}$/;
const COUNTRY = /^[A-Z]{2}$/;
/** 32 bytes in unpadded base64url (RFC 4648 §5). */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The message the signature covers: one field per line, in a fixed order, each value free of newlines (the parser
 * refuses them), so two different tokens never share a message. The raw query is never signed: the order or spelling
 * of its parameters changes nothing.
 */
export function canonicalMessage(token: Omit<SignedToken, 'signature'>): string {
  return [
    MESSAGE_VERSION,
    token.keyId,
    token.scope.kind,
    token.scope.path,
    String(token.expires),
    token.notBefore === undefined ? '' : String(token.notBefore),
    token.ip ?? '',
    token.country ?? '',
  ].join('\n');
}

/** The token's parameters as a query string (no `?`), the signature last. */
export function tokenQuery(token: SignedToken): string {
  const pairs: [string, string | undefined][] = [
    [token.scope.kind === 'prefix' ? PARAMS.prefix : PARAMS.path, token.scope.path],
    [PARAMS.expires, String(token.expires)],
    [PARAMS.notBefore, token.notBefore === undefined ? undefined : String(token.notBefore)],
    [PARAMS.keyId, token.keyId],
    [PARAMS.ip, token.ip],
    [PARAMS.country, token.country],
    [PARAMS.signature, base64url(token.signature)],
  ];
  return pairs
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join('&');
}

/** The query (without `?`) split into our parameters and the rest, the rest kept exactly as written. */
export function splitQuery(query: string): { ours: [string, string][]; rest: string } {
  const ours: [string, string][] = [];
  const rest: string[] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    // URLSearchParams decodes as a query does (`+` a space, a stray `%` kept) and never throws.
    const pair = [...new URLSearchParams(piece)][0];
    if (pair?.[0].startsWith(PARAM_PREFIX)) ours.push(pair);
    else rest.push(piece);
  }
  return { ours, rest: rest.join('&') };
}

/** Reads a token from its parameters; never throws, whatever they hold. */
export function readToken(pairs: readonly (readonly [string, string])[]): TokenRead {
  if (pairs.length === 0) return { ok: false, reason: 'missing' };
  const malformed: TokenRead = { ok: false, reason: 'malformed' };
  const values = new Map<string, string>();
  for (const [name, value] of pairs) {
    // An unknown parameter of ours, or one given twice, is never guessed at.
    if (!KNOWN.has(name) || values.has(name)) return malformed;
    values.set(name, value);
  }
  const path = values.get(PARAMS.path);
  const prefix = values.get(PARAMS.prefix);
  const expires = values.get(PARAMS.expires);
  const notBefore = values.get(PARAMS.notBefore);
  const keyId = values.get(PARAMS.keyId);
  const ip = values.get(PARAMS.ip);
  const country = values.get(PARAMS.country);
  const signature = values.get(PARAMS.signature);
  if ((path === undefined) === (prefix === undefined)) return malformed;
  const scope: Scope = prefix === undefined ? { kind: 'path', path: path ?? '' } : { kind: 'prefix', path: prefix };
  if (!SCOPE_PATH.test(scope.path) || (scope.kind === 'prefix' && !scope.path.endsWith('/'))) return malformed;
  if (expires === undefined || !UNIX_SECONDS.test(expires)) return malformed;
  if (notBefore !== undefined && !UNIX_SECONDS.test(notBefore)) return malformed;
  if (keyId === undefined || !KEY_ID.test(keyId)) return malformed;
  if (ip !== undefined && !IP.test(ip)) return malformed;
  if (country !== undefined && !COUNTRY.test(country)) return malformed;
  if (signature === undefined || !SIGNATURE.test(signature)) return malformed;
  const bytes = fromBase64url(signature);
  if (bytes === undefined) return malformed;
  return {
    ok: true,
    token: {
      keyId,
      scope,
      expires: Number(expires),
      notBefore: notBefore === undefined ? undefined : Number(notBefore),
      ip,
      country,
      signature: bytes,
    },
  };
}

/** The tc_token cookie's value in a Cookie field (RFC 6265 §5.4: `name=value` pairs split by `; `); null if none. */
export function tokenCookie(cookie: string | null): string | null {
  if (cookie === null || !cookie.includes(TOKEN_COOKIE)) return null;
  for (const pair of cookie.split(';')) {
    const trimmed = pair.trim();
    if (trimmed.startsWith(`${TOKEN_COOKIE}=`)) return trimmed.slice(TOKEN_COOKIE.length + 1);
  }
  return null;
}

/** The Cookie field without tc_token (null when nothing else is left): the origin never sees the token. */
export function withoutTokenCookie(cookie: string): string | null {
  const kept = cookie
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '' && !pair.startsWith(`${TOKEN_COOKIE}=`));
  return kept.length === 0 ? null : kept.join('; ');
}

/** RFC 4648 §5, unpadded. */
function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** RFC 4648 §5, unpadded; undefined when the text is not base64url or leaves bits over (one spelling per value). */
function fromBase64url(text: string): Uint8Array | undefined {
  let binary: string;
  try {
    binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  } catch {
    return undefined;
  }
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  return base64url(bytes) === text ? bytes : undefined;
}

/** Whether a query may hold a parameter of ours, in any spelling of its name (`tc%5Fsig` is `tc_sig`). */
export function mayHoldToken(query: string): boolean {
  return OUR_NAME.test(query);
}

const OUR_NAME = /tc(?:_|%5f)/i;

/** A path and query without our parameters (the rest as written); as it was when it holds none. */
export function withoutTokenParams(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf('?');
  if (q < 0 || !mayHoldToken(pathAndQuery.slice(q))) return pathAndQuery;
  const { rest } = splitQuery(pathAndQuery.slice(q + 1));
  return rest === '' ? pathAndQuery.slice(0, q) : `${pathAndQuery.slice(0, q)}?${rest}`;
}
