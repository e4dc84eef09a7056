// Interim answers (RFC 9110 §15.2: 100 Continue, 103 Early Hints …) precede the final answer and never replace it:
// the final one, read out of what the local runtime's fetch hands back (Cloudflare's reads 1xx itself).

import { BadGateway } from '../../shared/http/errors.ts';
import { concatBytes } from '../../shared/streams/bytes.ts';

/** Longest final head read past interim answers. */
const MAX_HEAD = 64 * 1024;

/**
 * `response` itself, or the final answer behind the interim one the runtime returned: the local
 * runtime's fetch hands back the first 1xx as if it were final, with the rest of the exchange (the
 * final head and body, raw HTTP/1.1) as its body, so an origin that sends Early Hints is still answered.
 */
export async function finalAnswer(response: Response, method: string): Promise<Response> {
  if (response.status < 100 || response.status > 199 || response.status === 101) return response;
  if (response.body === null) throw new BadGateway(`origin answered only ${response.status} (interim)`);
  const reader = response.body.getReader();
  let buffered: Uint8Array = new Uint8Array(0);
  for (;;) {
    const end = headEnd(buffered);
    if (end === -1) {
      if (buffered.byteLength > MAX_HEAD) return fail(reader, 'an oversized head after an interim answer');
      const { done, value } = await reader.read();
      if (done) return fail(reader, 'no final answer after an interim one');
      buffered = concatBytes([buffered, value]);
      continue;
    }
    const head = parseHead(new TextDecoder().decode(buffered.subarray(0, end)));
    buffered = buffered.subarray(end + 4);
    if (head === undefined) return fail(reader, 'an unreadable head after an interim answer');
    // Another interim answer (§15.2: a client must accept several): read on.
    if (head.status >= 100 && head.status <= 199) continue;
    const bodyless = method === 'HEAD' || head.status === 204 || head.status === 304;
    if (bodyless) await reader.cancel();
    const body = bodyless ? null : framed(head.headers, buffered, reader);
    head.headers.delete('transfer-encoding');
    return new Response(body, {
      status: head.status,
      statusText: head.statusText,
      headers: head.headers,
      encodeBody: 'manual',
    } as ResponseInit);
  }
}

async function fail(reader: ReadableStreamDefaultReader<Uint8Array>, what: string): Promise<never> {
  await reader.cancel().catch(() => undefined);
  throw new BadGateway(`origin sent ${what}`);
}

function headEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.byteLength; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

function parseHead(text: string): { status: number; statusText: string; headers: Headers } | undefined {
  const [statusLine = '', ...lines] = text.split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})(?: (.*))?$/.exec(statusLine);
  if (match === null) return undefined;
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    try {
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    } catch {
      return undefined;
    }
  }
  return { status: Number(match[1]), statusText: match[2] ?? '', headers };
}

/** The final body as RFC 9112 §6.3 frames it: chunked, Content-Length, or until the connection closes. */
function framed(
  headers: Headers,
  start: Uint8Array,
  reader: ReadableStreamDefaultReader<Uint8Array>,
): ReadableStream<Uint8Array> {
  const chunked = /(^|,)\s*chunked\s*$/i.test(headers.get('transfer-encoding') ?? '');
  const length = chunked ? undefined : headers.get('content-length');
  let remaining =
    length !== null && length !== undefined && /^\d{1,16}$/.test(length) ? Number(length) : Number.POSITIVE_INFINITY;
  let pending: Uint8Array = start;
  const dechunk = chunked ? new Dechunker() : undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (remaining === 0 || dechunk?.done === true) {
          controller.close();
          await reader.cancel().catch(() => undefined);
          return;
        }
        if (pending.byteLength === 0) {
          const { done, value } = await reader.read();
          if (done) {
            if (Number.isFinite(remaining) || dechunk !== undefined)
              controller.error(new Error('the final answer ended early'));
            else controller.close();
            return;
          }
          pending = value;
        }
        const bytes =
          dechunk !== undefined ? dechunk.take(pending) : pending.subarray(0, Math.min(pending.byteLength, remaining));
        pending = dechunk !== undefined ? new Uint8Array(0) : pending.subarray(bytes.byteLength);
        if (!dechunk) remaining -= bytes.byteLength;
        if (bytes.byteLength > 0) {
          controller.enqueue(bytes);
          return;
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** RFC 9112 §7.1 chunked coding, decoded incrementally (extensions and trailers skipped). */
class Dechunker {
  done = false;
  private left = 0;
  private line = '';
  private state: 'size' | 'data' | 'data-end' | 'trailer' = 'size';

  take(input: Uint8Array): Uint8Array {
    const out: Uint8Array[] = [];
    let i = 0;
    while (i < input.byteLength && !this.done) {
      if (this.state === 'data') {
        const n = Math.min(this.left, input.byteLength - i);
        out.push(input.subarray(i, i + n));
        i += n;
        this.left -= n;
        if (this.left === 0) this.state = 'data-end';
        continue;
      }
      const byte = input[i++] ?? 0;
      if (byte !== 10) {
        if (byte !== 13) this.line += String.fromCharCode(byte);
        continue;
      }
      const line = this.line;
      this.line = '';
      if (this.state === 'data-end') this.state = 'size';
      else if (this.state === 'size') {
        const size = Number.parseInt(line.split(';', 1)[0] ?? '', 16);
        if (!Number.isFinite(size) || size < 0) throw new Error('a malformed chunk size');
        if (size === 0) this.state = 'trailer';
        else {
          this.left = size;
          this.state = 'data';
        }
      } else if (line === '') this.done = true;
    }
    return out.length === 1 && out[0] !== undefined ? out[0] : concatBytes(out);
  }
}
