// A request body in the chunked transfer coding (RFC 9112 §7.1), read whole by the local front before
// any of its request is forwarded. Pure: bytes in, a verdict out; no I/O.

/** The longest chunk-size line taken (size, extensions, CRLF): a size needs 12 hex digits at most. */
const MAX_CHUNK_LINE_BYTES = 1024;
/** The most trailer-section bytes taken; trailers are dropped (the edge uses none). */
const MAX_TRAILER_BYTES = 8 * 1024;
/**
 * chunk-size [ BWS ";" chunk-ext ] (RFC 9112 §7.1, §7.1.1; BWS is RFC 9110 §5.6.3): hex digits
 * only, so `5 ` (whitespace and no extension) is malformed; an extension is any text up to the
 * line's CRLF, and is not forwarded.
 */
const CHUNK_SIZE_LINE = /^([0-9A-Fa-f]{1,12})(?:[\t ]*;[^\r\n]*)?$/;

/** What the bytes so far make of the body: more to come, the whole body (and what follows it), or a refusal. */
export type ChunkedVerdict =
  | { kind: 'more' }
  | { kind: 'done'; body: Buffer; rest: Buffer }
  | { kind: 'refused'; status: 400 | 413; reason: string };

type Part =
  | { kind: 'size' }
  | { kind: 'data'; left: number }
  | { kind: 'data-end' }
  | { kind: 'trailers'; taken: number };

/**
 * Reads one chunked body from the bytes pushed to it, in any pieces. Whole before any of its request
 * is forwarded, so that a malformed chunk can still be refused with a 400 (once part of a request
 * has reached the edge, the only refusal left is a cut connection), as nginx and Cloudflare's front
 * end buffer request bodies before the upstream sees them.
 */
export class ChunkedBody {
  private readonly limit: number;
  private part: Part = { kind: 'size' };
  private pending: Buffer = Buffer.alloc(0);
  private readonly chunks: Buffer[] = [];
  private length = 0;

  /** `limit`: the most body bytes taken; more is a 413. */
  constructor(limit: number) {
    this.limit = limit;
  }

  /** Takes the next bytes; once the verdict is `done` or `refused`, nothing more is to be pushed. */
  push(bytes: Buffer): ChunkedVerdict {
    this.pending = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes]);
    for (;;) {
      const verdict = this.step();
      if (verdict !== undefined) return verdict;
    }
  }

  /** One part of the coding over what is pending; undefined = go on. */
  private step(): ChunkedVerdict | undefined {
    switch (this.part.kind) {
      case 'size':
        return this.sizeLine();
      case 'data':
        return this.data(this.part.left);
      case 'data-end':
        return this.dataEnd();
      case 'trailers':
        return this.trailerLine(this.part.taken);
    }
  }

  private sizeLine(): ChunkedVerdict | undefined {
    const line = this.line(MAX_CHUNK_LINE_BYTES);
    if (typeof line !== 'string') return line;
    const size = CHUNK_SIZE_LINE.exec(line);
    if (!size)
      return refuse(400, 'malformed chunk-size line: expected hex digits, optionally ";" extensions, then CRLF');
    const length = parseInt(size[1] ?? '', 16);
    if (this.length + length > this.limit)
      return refuse(413, `the request body is larger than the ${this.limit} bytes taken`);
    this.part = length === 0 ? { kind: 'trailers', taken: 0 } : { kind: 'data', left: length };
    return undefined;
  }

  private data(left: number): ChunkedVerdict | undefined {
    if (this.pending.length === 0) return { kind: 'more' };
    const taken = this.pending.subarray(0, left);
    this.chunks.push(taken);
    this.length += taken.length;
    this.pending = this.pending.subarray(taken.length);
    this.part = taken.length === left ? { kind: 'data-end' } : { kind: 'data', left: left - taken.length };
    return undefined;
  }

  private dataEnd(): ChunkedVerdict | undefined {
    if (this.pending.length < 2)
      return this.pending.length === 1 && this.pending[0] !== 0x0d
        ? refuse(400, 'malformed chunk: its data is not followed by CRLF')
        : { kind: 'more' };
    if (this.pending[0] !== 0x0d || this.pending[1] !== 0x0a)
      return refuse(400, 'malformed chunk: its data is not followed by CRLF');
    this.pending = this.pending.subarray(2);
    this.part = { kind: 'size' };
    return undefined;
  }

  /** A trailer field line (dropped), or the empty line that ends the body. */
  private trailerLine(taken: number): ChunkedVerdict | undefined {
    const line = this.line(MAX_TRAILER_BYTES - taken);
    if (typeof line !== 'string') return line;
    if (line !== '') {
      this.part = { kind: 'trailers', taken: taken + line.length + 2 };
      return undefined;
    }
    return { kind: 'done', body: Buffer.concat(this.chunks, this.length), rest: this.pending };
  }

  /**
   * The next line without its CRLF (consumed), `more` until it has come, or a refusal of a bare CR or LF or an overlong
   * line.
   */
  private line(max: number): string | ChunkedVerdict {
    const end = this.pending.indexOf('\r\n');
    const seen = this.pending.subarray(0, end < 0 ? this.pending.length : end).toString('latin1');
    // RFC 9112 §2.2: a bare CR or LF is no line end here; refused rather than guessed at.
    if (/\n|\r(?=.)/s.test(seen)) return refuse(400, 'malformed chunked body: lines must end in CRLF');
    if (end < 0)
      return seen.length + 2 > max ? refuse(400, 'malformed chunked body: a line is too long') : { kind: 'more' };
    if (end + 2 > max) return refuse(400, 'malformed chunked body: a line is too long');
    this.pending = this.pending.subarray(end + 2);
    return seen;
  }
}

function refuse(status: 400 | 413, reason: string): ChunkedVerdict {
  return { kind: 'refused', status, reason };
}
