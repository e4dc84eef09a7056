// Typed errors that build their own response (after miniflare's cache worker and hono's HTTPException),
// thrown anywhere on the request path and turned into a response in one place: each worker's `onError`.

export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The status the next hop answered with, when this error stands for its answer (RFC 9211 fwd-status). */
  upstreamStatus: number | undefined;
  /** Why, in a word, for the tier's Cache-Status member (RFC 9211 §2.8 detail); absent = the message says it. */
  detail: string | undefined = undefined;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.headers = headers;
  }

  /** Records the next hop's status behind this error; returns this error. */
  from(upstreamStatus: number): this {
    this.upstreamStatus = upstreamStatus;
    return this;
  }

  /** Names the cause for Cache-Status (`detail`); returns this error. */
  because(detail: string): this {
    this.detail = detail;
    return this;
  }

  toResponse(method = 'GET'): Response {
    const body = `${this.status} ${this.message}\n`;
    const headers = new Headers(this.headers);
    headers.set('content-type', 'text/plain; charset=utf-8');
    // The absence of an object may be cached briefly (a tier's choice, NEGATIVE_TTL); nothing else may.
    if (this.status !== 404 && this.status !== 410) headers.set('cache-control', 'no-store');
    headers.set('content-length', String(new TextEncoder().encode(body).byteLength));
    return new Response(method === 'HEAD' ? null : body, { status: this.status, headers });
  }
}

export class BadRequest extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class Forbidden extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}

/**
 * A protected path (SIGNED_PREFIXES) asked for without a token that admits it (docs/private-content.md): the reason
 * in the body and in Cache-Status (`detail=signature-<reason>`), never reaching the shield or the origin.
 */
export class SignatureRefused extends HttpError {
  readonly reason: string;

  constructor(reason: string) {
    super(403, `${reason}: ${SIGNATURE_REFUSALS[reason] ?? 'the signature does not admit this request'}`);
    this.reason = reason;
    this.because(`signature-${reason}`);
  }
}

/** What each refusal tells the client (shared/admission/verifier.ts RefusalReason names them). */
const SIGNATURE_REFUSALS: Readonly<Record<string, string>> = {
  missing: 'this path needs a signed URL or the tc_token cookie',
  malformed: 'the signature parameters cannot be read',
  'unknown-key': 'the token names a key id this deployment does not have',
  tampered: 'the signature does not match the token',
  expired: 'the token has expired',
  'not-yet-valid': 'the token is not valid yet',
  'wrong-path': 'the token was signed for another path',
  'wrong-prefix': 'the token was signed for another folder',
  'wrong-ip': 'the token is bound to another client address',
  'wrong-country': 'the token is bound to another country',
};

export class NotFound extends HttpError {
  constructor(message = 'not found') {
    super(404, message);
  }
}

/** RFC 9110 §15.5.11: the resource is gone for good (a 410 from the origin, passed on). */
export class Gone extends HttpError {
  constructor(message = 'gone') {
    super(410, message);
  }
}

/** RFC 9110 §15.5.6: a 405 MUST carry Allow. */
export class MethodNotAllowed extends HttpError {
  constructor(method: string, allow: readonly string[]) {
    super(405, `method ${method.slice(0, 32)} is not allowed here; use ${allow.join(', ')}`, {
      allow: allow.join(', '),
    });
  }
}

/** RFC 9110 §15.5.2: a 401 carries the challenge (WWW-Authenticate). */
export class Unauthorized extends HttpError {
  constructor(message: string, challenge: string) {
    super(401, message, { 'www-authenticate': challenge });
  }
}

/** RFC 9110 §15.5.13: If-Match or If-Unmodified-Since is false for what is held. */
export class PreconditionFailed extends HttpError {
  constructor(message: string) {
    super(412, message);
  }
}

export class ContentTooLarge extends HttpError {
  constructor(limit: number) {
    super(413, `expected a body of at most ${limit} bytes`);
  }
}

export class UnsupportedMediaType extends HttpError {
  constructor(expected: string, got: string) {
    super(415, `expected Content-Type: ${expected}, got ${JSON.stringify(got || 'none')}`);
  }
}

/** RFC 9110 §15.5.20: this deployment serves no site under that host name. */
export class Misdirected extends HttpError {
  constructor(host: string) {
    super(421, `no site is configured for the host ${JSON.stringify(host.slice(0, 253))} (HOST_BUCKETS)`);
  }
}

/** The client went away before its answer (nginx's 499): nobody reads this one. */
export class ClientGone extends HttpError {
  constructor() {
    super(499, 'the client went away');
  }
}

/** An origin's refusal or failure whose status passes while its body does not (S3's XML; `code` is S3's error code). */
export class OriginAnswered extends HttpError {
  constructor(status: number, code?: string) {
    super(status, `origin answered with status ${status}${code ? ` (${code})` : ''}`);
  }
}

/** Still busy (503 SlowDown, 429) after the retries: the client may try again when the origin said. */
export class OriginBusy extends HttpError {
  constructor(retryAfter: string | null) {
    super(
      503,
      'the origin is busy (SlowDown); try again later',
      retryAfter === null ? {} : { 'retry-after': retryAfter },
    );
  }
}

/**
 * The next tier answered a slice of the pinned version with a failure of its own (a 5xx, a
 * 429): not evidence of another version, so the stored manifest stays; its status passes
 * (with its Retry-After), and a body already under way breaks.
 */
export class NextHopFailed extends HttpError {
  constructor(status: number, retryAfter: string | null) {
    super(
      status >= 400 && status <= 599 ? status : 502,
      `the shield answered ${status} for a slice`,
      retryAfter === null ? {} : { 'retry-after': retryAfter },
    );
    this.from(status);
  }
}

/**
 * A purge recorded (the global list has it, a retry is safe) but not confirmed by every layer
 * that keeps copies: one it does not reach by itself (the Workers Cache in front of the
 * shield) may still serve what it names. Asked again after Retry-After, it is purged there.
 */
export class PurgeNotConfirmed extends HttpError {
  static readonly RETRY_AFTER_S = 60;
  constructor(message: string) {
    super(503, `${message}; the purge is recorded: ask again to purge that layer`, {
      'retry-after': String(PurgeNotConfirmed.RETRY_AFTER_S),
    });
  }
}

/**
 * A purge the global list (KV) did not take: only the isolate that was asked applied it, so other locations will not
 * hear of it. Nothing else was done (the shield was not told, the platform not asked); asked again after Retry-After,
 * once KV answers, it is recorded.
 */
export class PurgeNotRecorded extends HttpError {
  constructor(message: string) {
    super(503, `the purge list (KV) did not take the purge (${message}): only this isolate applied it; ask again`, {
      'retry-after': String(PurgeNotConfirmed.RETRY_AFTER_S),
    });
  }
}

/**
 * The tier holds as much as it may of answers sent without a Content-Length (shared/tier/held-pool.ts), and this one
 * may not be stored: it cannot be sent so that a cut would show, so it is refused before any byte goes out, a
 * temporary overload of ours (RFC 9110 §15.6.4) to be asked again after Retry-After (§10.2.3).
 */
export class HeldBodiesFull extends HttpError {
  /**
   * The least Retry-After says (RFC 9110 §10.2.3, delay-seconds): a held body is let go of as soon as it has ended
   * and been read, so room comes back within the time one answer takes.
   */
  static readonly RETRY_AFTER_S = 1;
  constructor(message: string) {
    super(503, message, { 'retry-after': String(HeldBodiesFull.RETRY_AFTER_S) });
    this.because('held-bodies-full');
  }
}

export class BadGateway extends HttpError {
  constructor(message: string) {
    super(502, message);
  }
}

export class GatewayTimeout extends HttpError {
  constructor(message: string) {
    super(504, message);
  }
}

/** The detail (RFC 9211 §2.8) of the 504 a tier answers only-if-cached with when nothing stored answers it. */
export const ONLY_IF_CACHED = 'only-if-cached';

/** RFC 9111 §5.2.1.7: `only-if-cached` and nothing stored answers it: "respond with a 504 (Gateway Timeout)". */
export class NotStored extends GatewayTimeout {
  override detail = ONLY_IF_CACHED;
  constructor() {
    super('nothing stored here answers this request, and it asked only-if-cached');
  }
}

/** Why a tier is disconnected from its next hop (RFC 9111 §4.2.4): the detail its Cache-Status names. */
export type DisconnectedDetail = 'origin-unreachable' | 'origin-timeout' | 'shield-unreachable';
const DISCONNECTED: readonly string[] = [
  'origin-unreachable',
  'origin-timeout',
  'shield-unreachable',
] satisfies DisconnectedDetail[];

/**
 * The next hop could not be reached, or sent no answer in time: no answer of its own exists,
 * so one of ours (502, 504) stands in, and a stale copy may stand in for that (RFC 9111 §4.2.4:
 * the cache is "disconnected").
 */
export class Disconnected extends HttpError {
  override detail: DisconnectedDetail;
  constructor(detail: DisconnectedDetail, message: string) {
    super(detail === 'origin-timeout' ? 504 : 502, message);
    this.detail = detail;
  }
}

/** Whether a Cache-Status detail (ours, from the next tier) says that tier was disconnected. */
export function isDisconnectedDetail(detail: string | undefined): boolean {
  return detail !== undefined && DISCONNECTED.includes(detail);
}

/**
 * Thrown for a configuration that cannot work: every problem found in it at once (a deploy or
 * a start fixes them all in one go, not one per attempt), each naming its setting (never a
 * secret's value). The message is the problems joined by "; ".
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === 'string' ? [problems] : [...problems];
    super(list.join('; '));
    this.problems = list;
  }
}

/** The object changed upstream while we were reading it (nginx: "etag mismatch in slice response"). */
export class VersionChanged extends Error {
  override name = 'VersionChanged';
}

/** A body shorter or longer than its Content-Length, its Content-Range or its slice. */
export class LengthMismatch extends Error {
  override name = 'LengthMismatch';
}

/**
 * The reader of an answer's body went away before it ended (the client left; at the shield, the edge's request): a
 * write into the answer that failed, told apart from a piece that did, so that it is counted, never an error.
 */
export class ReaderGone extends Error {
  override name = 'ReaderGone';
  constructor(cause: unknown) {
    super('the reader of the answer went away', { cause });
  }
}

/** No byte arrived for longer than the idle bound while one was awaited (ORIGIN_IDLE_TIMEOUT_MS). */
export class BodyStalled extends Error {
  override name = 'BodyStalled';
}

/** Any error as a response: ours as built, a bad setting named, anything else an opaque 500. */
export function errorResponse(error: unknown, method: string): Response {
  if (error instanceof HttpError) return error.toResponse(method);
  // Names the setting, never its value when it is a secret (ConfigError messages never quote those).
  if (error instanceof ConfigError)
    return new HttpError(500, `tiercache is misconfigured: ${error.message}`).toResponse(method);
  return new HttpError(500, 'internal error').toResponse(method);
}
