// A GET over a raw socket that reports how the answer was framed (RFC 9112 §6), as no HTTP
// client library does: whether a chunked body reached its last chunk, whether a body with a
// Content-Length got every byte, or whether the connection ended first. What tells a cut
// transfer from a complete-looking one.

import { connect } from 'node:net';

export interface Framed {
  status: number;
  headers: Headers;
  /** The body's bytes that arrived (chunked: decoded). */
  body: Buffer;
  framing: 'chunked' | 'length' | 'close';
  /**
   * The message ended as its framing says a whole message ends (RFC 9112 §6.3): the last chunk
   * and the final CRLF, or Content-Length bytes. A close-delimited body is never complete here.
   */
  complete: boolean;
}

/** GET `path` of `base` with `headers`, waiting at most `waitMs` for the answer to end. */
export function rawFramedGet(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  waitMs = 10_000,
): Promise<Framed> {
  const url = new URL(base);
  const head = [
    `GET ${path} HTTP/1.1`,
    `Host: ${url.host}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    let settled = false;
    const socket = connect(Number(url.port), url.hostname, () => socket.write(head));
    const finish = (): void => {
      if (settled) return;
      const framed = parse(data);
      if (framed === undefined) {
        settled = true;
        clearTimeout(timer);
        socket.destroy();
        reject(new Error(`no answer head in ${data.length} bytes`));
        return;
      }
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(framed);
    };
    const timer = setTimeout(finish, waitMs);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      // A kept-alive connection stays open after a whole answer: stop once the framing says it is over.
      if (parse(data)?.complete === true) finish();
    });
    socket.on('end', finish);
    socket.on('error', finish);
    socket.on('close', finish);
  });
}

function parse(data: Buffer): Framed | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const rest = data.subarray(end + 4);
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) return { status, headers, ...dechunked(rest) };
  const length = headers.get('content-length');
  if (length !== null) {
    const declared = Number(length);
    return { status, headers, body: rest.subarray(0, declared), framing: 'length', complete: rest.length >= declared };
  }
  return { status, headers, body: rest, framing: 'close', complete: false };
}

/** RFC 9112 §7.1: chunk-size CRLF chunk-data CRLF, …, last-chunk (0) trailer-section CRLF. */
function dechunked(rest: Buffer): { body: Buffer; framing: 'chunked'; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = Number.parseInt(rest.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isInteger(size)) break;
    if (size === 0) {
      // No trailers are sent here: the last chunk is followed by the final CRLF.
      const complete = rest.subarray(lineEnd + 2, lineEnd + 4).toString('latin1') === '\r\n';
      return { body: Buffer.concat(parts), framing: 'chunked', complete };
    }
    const dataEnd = lineEnd + 2 + size;
    if (rest.length < dataEnd + 2) {
      parts.push(rest.subarray(lineEnd + 2, Math.min(rest.length, dataEnd)));
      break;
    }
    parts.push(rest.subarray(lineEnd + 2, dataEnd));
    at = dataEnd + 2;
  }
  return { body: Buffer.concat(parts), framing: 'chunked', complete: false };
}
