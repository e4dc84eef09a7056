// HTTP/1.1 messages found in a byte stream as it passes (RFC 9112): each head, its body's bytes and its end, so that a
// TCP tap can say what each response of a connection carried. Pure: bytes in, events out, any chunking.

/** A message's head: its start line and its fields, names lower-cased, repeated ones joined with ", ". */
export interface MessageHead {
  startLine: string;
  fields: ReadonlyMap<string, string>;
}

export type FramingEvent =
  | { kind: 'head'; head: MessageHead }
  /** Body bytes (a chunked body's payload, without its framing). */
  | { kind: 'body'; bytes: number }
  /** The message ended; `complete` false when the stream ended inside it. */
  | { kind: 'end'; complete: boolean };

type State =
  | { name: 'head' }
  | { name: 'length'; left: number }
  | { name: 'chunk-size' }
  | { name: 'chunk-data'; left: number }
  | { name: 'chunk-end' }
  | { name: 'trailers' }
  | { name: 'until-close' }
  /** Nothing more can be framed (a head over the bound, or a chunk size that is none): the rest is not counted. */
  | { name: 'lost' };

/** A head larger than this is not HTTP the tap can follow. */
const MAX_HEAD_BYTES = 64 * 1024;
const CR = 13;
const LF = 10;

/**
 * One direction of one connection. A response framer is told the method of each request it will answer (`expect`),
 * in order: a response to HEAD has no body (RFC 9112 §6.3 ¶1).
 */
export class MessageFramer {
  private state: State = { name: 'head' };
  /** Bytes of a head or a line not yet ended. */
  private pending = new Uint8Array(0);
  private readonly methods: string[] = [];
  private readonly role: 'request' | 'response';

  constructor(role: 'request' | 'response') {
    this.role = role;
  }

  expect(method: string): void {
    this.methods.push(method);
  }

  /** The events `chunk` completes, in order. */
  push(chunk: Uint8Array): FramingEvent[] {
    const events: FramingEvent[] = [];
    let at = 0;
    // Bounded: every turn consumes bytes, or ends a message of no body, or stops.
    while (at < chunk.length || this.endsAtOnce()) {
      const state = this.state;
      if (state.name === 'length' || state.name === 'chunk-data') {
        const take = Math.min(state.left, chunk.length - at);
        if (take > 0) events.push({ kind: 'body', bytes: take });
        at += take;
        state.left -= take;
        if (state.left > 0) break;
        if (state.name === 'length') this.end(events, true);
        else this.state = { name: 'chunk-end' };
      } else if (state.name === 'until-close') {
        events.push({ kind: 'body', bytes: chunk.length - at });
        at = chunk.length;
      } else if (state.name === 'lost') {
        at = chunk.length;
      } else if (state.name === 'head' && this.pending.length === 0 && (chunk[at] === CR || chunk[at] === LF)) {
        // RFC 9112 §2.2: empty lines before a request line are ignored.
        at += 1;
      } else {
        const line = this.takeUntil(chunk, at, state.name === 'head' ? '\r\n\r\n' : '\r\n');
        at = line.next;
        if (line.text === undefined) break;
        this.onLine(line.text, events);
      }
    }
    return events;
  }

  /** The stream ended: a body read until the close ends with it; anything else open ends cut short. */
  finish(): FramingEvent[] {
    const { name } = this.state;
    if (name === 'until-close') return [{ kind: 'end', complete: true }];
    if (name === 'head' && this.pending.length === 0) return [];
    return name === 'head' || name === 'lost' ? [] : [{ kind: 'end', complete: false }];
  }

  /** A head just read whose message has no body, or a body of length 0: it ends without a byte more. */
  private endsAtOnce(): boolean {
    return this.state.name === 'length' && this.state.left === 0;
  }

  private onLine(text: string, events: FramingEvent[]): void {
    const state = this.state.name;
    if (state === 'head') {
      const head = parseHead(text);
      events.push({ kind: 'head', head });
      this.state = this.bodyOf(head);
    } else if (state === 'chunk-size') {
      // RFC 9112 §7.1: chunk-size [ chunk-ext ] CRLF; the last chunk is of size 0, then the trailers.
      const size = /^([0-9a-fA-F]+)/.exec(text)?.[1];
      if (size === undefined) this.state = { name: 'lost' };
      else
        this.state =
          Number.parseInt(size, 16) === 0
            ? { name: 'trailers' }
            : { name: 'chunk-data', left: Number.parseInt(size, 16) };
    } else if (state === 'chunk-end') {
      this.state = { name: 'chunk-size' };
    } else if (state === 'trailers' && text === '') {
      this.end(events, true);
    }
  }

  /** RFC 9112 §6.3: how the body after `head` is delimited. */
  private bodyOf(head: MessageHead): State {
    const none: State = { name: 'length', left: 0 };
    if (this.role === 'response') {
      const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(head.startLine)?.[1] ?? Number.NaN);
      // ¶1: interim (1xx) responses and 204, 304 have no body, nor has any response to HEAD; an
      // interim one is followed by the final answer to the same request (so its method stays expected).
      if (status >= 100 && status < 200) return { name: 'head' };
      const method = this.methods.shift();
      if (method === 'HEAD' || status === 204 || status === 304) return none;
    }
    const coding = head.fields.get('transfer-encoding');
    if (coding !== undefined) {
      // ¶4: chunked as the final coding frames the body; a response otherwise runs until the close.
      const chunked = /(^|,)\s*chunked\s*$/i.test(coding);
      if (chunked) return { name: 'chunk-size' };
      return this.role === 'response' ? { name: 'until-close' } : { name: 'lost' };
    }
    const length = head.fields.get('content-length');
    if (length !== undefined && /^\d+$/.test(length.trim())) return { name: 'length', left: Number(length.trim()) };
    // ¶7, ¶8: a request without either has no body; a response is read until the connection closes.
    return this.role === 'request' ? none : { name: 'until-close' };
  }

  private end(events: FramingEvent[], complete: boolean): void {
    events.push({ kind: 'end', complete });
    this.state = { name: 'head' };
  }

  /** The text up to `delimiter` (pending bytes first) and where the bytes after it start; no text while it is unseen. */
  private takeUntil(chunk: Uint8Array, from: number, delimiter: string): { text?: string; next: number } {
    const bytes = concat(this.pending, chunk.subarray(from));
    const found = indexOf(bytes, delimiter, Math.max(0, this.pending.length - delimiter.length + 1));
    if (found < 0) {
      this.pending = bytes.length > MAX_HEAD_BYTES ? new Uint8Array(0) : bytes.slice();
      if (bytes.length > MAX_HEAD_BYTES) this.state = { name: 'lost' };
      return { next: chunk.length };
    }
    const consumed = found + delimiter.length - this.pending.length;
    const text = latin1(bytes.subarray(0, found));
    this.pending = new Uint8Array(0);
    return { text, next: from + consumed };
  }
}

function parseHead(text: string): MessageHead {
  const [startLine = '', ...lines] = text.split('\r\n');
  const fields = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const before = fields.get(name);
    fields.set(name, before === undefined ? value : `${before}, ${value}`);
  }
  return { startLine, fields };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

function indexOf(bytes: Uint8Array, delimiter: string, from: number): number {
  const first = delimiter.charCodeAt(0);
  for (
    let i = bytes.indexOf(first, from);
    i >= 0 && i + delimiter.length <= bytes.length;
    i = bytes.indexOf(first, i + 1)
  ) {
    let match = true;
    for (let j = 1; j < delimiter.length && match; j++) match = bytes[i + j] === delimiter.charCodeAt(j);
    if (match) return i;
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}
