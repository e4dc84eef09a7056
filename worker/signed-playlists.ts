// Signed playlists play anywhere (docs/private-content.md, "Signed playlists"): a playlist admitted by a signed URL's
// folder token is rewritten on its way out, for that client, so that each URI it names inside the token's scope
// carries the token (shared/playlists/playlist-token.ts). The rewrite happens here, after every cache and the memory
// layer: the stored copy stays token-free and shared by every client, whatever token each holds. I/O only: reading
// the answer's bytes (decoded when gzip), handing them to the pure rewrite, and the answer sent.

import { grants } from '../shared/admission/protected-paths.ts';
import { type SignedToken, tokenQuery } from '../shared/admission/signed-token.ts';
import { BadGateway } from '../shared/http/errors.ts';
import {
  DECODED_CODINGS,
  isPlaylistPath,
  isPlaylistType,
  rewrittenHeaders,
  unrewritable,
} from '../shared/playlists/playlist-answer.ts';
import { MAX_REWRITTEN_BYTES, type TokenCarry, withPlaylistToken } from '../shared/playlists/playlist-token.ts';
import { rawPath } from '../shared/request/raw-path.ts';
import { concatBytes } from '../shared/streams/bytes.ts';
import { responseAsIs } from '../shared/streams/response-as-is.ts';
import { withTierReport } from '../shared/tier/tier-headers.ts';
import { urlFolderToken } from './admission.ts';
import { pathAsWritten } from './edge-address.ts';
import type { EdgeRequest } from './env.ts';
import type { EdgeFetch } from './site-responses.ts';

/** Request fields a rewritten playlist does not honour: it is answered whole (RFC 9110 §14.2: a server MAY ignore Range). */
const RANGE_FIELDS = ['range', 'if-range'];

/**
 * `site`'s answer to an admitted request (`url`: admission's, without the token), its playlist rewritten when a URL
 * folder token (`tc_prefix` in the query) admitted it. A cookie needs no rewrite: it goes along with every request
 * the player makes. Any other answer is `site`'s, untouched, in the same turn of the event loop when it came in one.
 */
export function withPlaylistTokens(
  request: Request,
  url: string,
  edge: EdgeRequest,
  ctx: ExecutionContext,
  site: EdgeFetch,
): Response | Promise<Response> {
  const token = folderToken(request, edge);
  if (token === undefined) {
    edge.admitted = { request, url };
    return site(request, edge, ctx);
  }
  const named = isPlaylistPath(rawPath(url).replace(/\?.*$/, ''));
  const asked = named && RANGE_FIELDS.some((field) => request.headers.has(field)) ? wholeRequest(request) : request;
  edge.admitted = { request: asked, url };
  const answer = site(asked, edge, ctx);
  // A segment's answer (the most of a player's requests) costs one test of its name and one of its type here.
  const rewrite = (response: Response): Response | Promise<Response> => {
    if (!named && !isPlaylistType(response.headers.get('content-type'))) return response;
    const carry = unrewritable(response.headers) === undefined ? tokenCarry(request, token, edge) : undefined;
    return carry === undefined ? response : rewritten(response, carry);
  };
  return answer instanceof Response ? rewrite(answer) : answer.then(rewrite);
}

/** The folder token a URL carried to admit `request` (a GET or HEAD); undefined for a cookie's, or none. */
function folderToken(request: Request, edge: EdgeRequest): SignedToken | undefined {
  if (edge.admission === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
  return urlFolderToken(request, edge, edge.admission);
}

/** What the playlist's URIs are judged by: the token's scope, as admission judges a request's path. */
function tokenCarry(request: Request, token: SignedToken, edge: EdgeRequest): TokenCarry | undefined {
  const scopePath = edge.admission?.paths.scopePath(token.scope);
  if (scopePath === undefined) return undefined;
  return {
    playlistUrl: request.url,
    token: tokenQuery(token),
    // The path admission would judge a request for `url` by (worker/admission.ts): protected, and granted there. A
    // public path never gets the token: admission would leave it on, for its cache key and an http origin to see.
    grants: (url) => {
      const path = pathAsWritten(url, edge.config);
      return grants(token.scope, scopePath, path) && edge.admission?.paths.protects(path) === true;
    },
  };
}

/** `request` without its Range: the playlist is read whole, then rewritten. */
function wholeRequest(request: Request): Request {
  const whole = new Request(request);
  for (const field of RANGE_FIELDS) whole.headers.delete(field);
  return whole;
}

/**
 * The answer with its playlist rewritten: a 304 and a HEAD get the headers a rewritten 200 would have; a 200 its
 * bytes read (gzip and deflate decoded), rewritten, and sent with those headers. Sent as it came: another status, a
 * body that is no playlist or is not UTF-8 (RFC 8216 §4: playlists are), or one past MAX_REWRITTEN_BYTES.
 */
async function rewritten(response: Response, carry: TokenCarry): Promise<Response> {
  const { status, statusText } = response;
  // A playlist past the bound is sent as stored, and a HEAD of it says so.
  if (Number(response.headers.get('content-length') ?? Number.NaN) > MAX_REWRITTEN_BYTES) return response;
  if (status === 304 || (status === 200 && response.body === null))
    return responseAsIs(null, { status, statusText, headers: rewrittenHeaders(response.headers, undefined) });
  if (status !== 200 || response.body === null) return response;
  const coding = response.headers.get('content-encoding')?.trim().toLowerCase() ?? 'identity';
  const decoded = DECODED_CODINGS.has(coding);
  const body = decoded
    ? response.body.pipeThrough(new DecompressionStream(coding === 'deflate' ? 'deflate' : 'gzip'))
    : response.body;
  let read: Awaited<ReturnType<typeof boundedRead>>;
  try {
    read = await boundedRead(body);
  } catch (error) {
    // A body that broke on its way (the next hop cut it) or a coding that does not decode: nothing was sent yet, so
    // the client gets a plain 502, never part of a playlist.
    const refused = new BadGateway(
      `the playlist could not be read: ${error instanceof Error ? error.message : String(error)}`,
    );
    return withTierReport(refused.toResponse(), 'edge', { detail: 'playlist-unreadable' }, 0);
  }
  const sent = (bytes: ReadableStream | Uint8Array, length: number | undefined): Response =>
    responseAsIs(bytes, {
      status,
      statusText,
      headers: decoded ? rewrittenHeaders(response.headers, length) : response.headers,
    });
  // Past the bound: sent as it is (decoded, when it was encoded), the bytes read first, then the rest.
  if (read.rest !== undefined) return sent(read.rest, undefined);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(read.bytes);
  } catch {
    return sent(read.bytes, read.bytes.byteLength);
  }
  const playlist = withPlaylistToken(text, carry);
  if (playlist === text) return sent(read.bytes, read.bytes.byteLength);
  const bytes = new TextEncoder().encode(playlist);
  return responseAsIs(bytes, { status, statusText, headers: rewrittenHeaders(response.headers, bytes.byteLength) });
}

/**
 * The body's bytes when they are at most MAX_REWRITTEN_BYTES; past that, a stream of all of them (those read first,
 * then the rest), as `rest`.
 */
async function boundedRead(body: ReadableStream<Uint8Array>): Promise<{ bytes: Uint8Array; rest?: ReadableStream }> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: concatBytes(chunks) };
    chunks.push(value);
    total += value.byteLength;
    if (total > MAX_REWRITTEN_BYTES) break;
  }
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { bytes: new Uint8Array(), rest };
}
