// The tap's HTTP/1.1 framing (bench/probes/http-framing.ts): each message of a connection found whatever the stream's
// chunking, bodies by Content-Length, chunked and until the close, and none after HEAD, 1xx, 204 and 304.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FramingEvent, MessageFramer } from '../../../bench/probes/http-framing.ts';

interface Message {
  startLine: string;
  bodyBytes: number;
  complete: boolean;
}

const encoder = new TextEncoder();

/** Feeds `wire` in the pieces `cuts` make, then ends the stream; answers each message found. */
function frame(framer: MessageFramer, wire: Uint8Array, cuts: readonly number[] = []): Message[] {
  const events: FramingEvent[] = [];
  let from = 0;
  for (const cut of [...new Set(cuts)].filter((c) => c > 0 && c < wire.length).sort((a, b) => a - b)) {
    events.push(...framer.push(wire.subarray(from, cut)));
    from = cut;
  }
  events.push(...framer.push(wire.subarray(from)), ...framer.finish());
  const messages: Message[] = [];
  for (const event of events) {
    if (event.kind === 'head') messages.push({ startLine: event.head.startLine, bodyBytes: 0, complete: false });
    const last = messages.at(-1);
    if (last === undefined) continue;
    if (event.kind === 'body') last.bodyBytes += event.bytes;
    if (event.kind === 'end') last.complete = event.complete;
  }
  return messages;
}

function responses(methods: readonly string[]): MessageFramer {
  const framer = new MessageFramer('response');
  for (const method of methods) framer.expect(method);
  return framer;
}

/** A response with a body of `size` bytes, by Content-Length or chunked in pieces of `piece`. */
function response(status: number, size: number, chunked?: number): string {
  const body = 'x'.repeat(size);
  if (chunked === undefined) return `HTTP/1.1 ${status} S\r\ncontent-length: ${size}\r\n\r\n${body}`;
  let wire = `HTTP/1.1 ${status} S\r\nTransfer-Encoding: chunked\r\n\r\n`;
  for (let at = 0; at < size; at += chunked) {
    const part = body.slice(at, at + chunked);
    wire += `${part.length.toString(16)};ext=1\r\n${part}\r\n`;
  }
  return `${wire}0\r\nx-trailer: 1\r\n\r\n`;
}

describe('MessageFramer', () => {
  it('finds keep-alive responses by Content-Length and chunked, and none of a HEAD, 1xx, 204 or 304 body', () => {
    const wire = [
      response(206, 10),
      'HTTP/1.1 100 Continue\r\n\r\n',
      response(200, 25, 7),
      'HTTP/1.1 200 OK\r\ncontent-length: 999\r\n\r\n',
      'HTTP/1.1 304 Not Modified\r\netag: "a"\r\n\r\n',
      'HTTP/1.1 204 No Content\r\n\r\n',
      response(200, 3),
    ].join('');
    expect(frame(responses(['GET', 'GET', 'HEAD', 'GET', 'GET', 'GET']), encoder.encode(wire))).toEqual([
      { startLine: 'HTTP/1.1 206 S', bodyBytes: 10, complete: true },
      { startLine: 'HTTP/1.1 100 Continue', bodyBytes: 0, complete: false },
      { startLine: 'HTTP/1.1 200 S', bodyBytes: 25, complete: true },
      { startLine: 'HTTP/1.1 200 OK', bodyBytes: 0, complete: true },
      { startLine: 'HTTP/1.1 304 Not Modified', bodyBytes: 0, complete: true },
      { startLine: 'HTTP/1.1 204 No Content', bodyBytes: 0, complete: true },
      { startLine: 'HTTP/1.1 200 S', bodyBytes: 3, complete: true },
    ]);
  });

  it('a body cut by the close ends incomplete, with the bytes that came; one without a length ends with the close', () => {
    expect(frame(responses(['GET']), encoder.encode('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc'))).toEqual([
      { startLine: 'HTTP/1.1 200 OK', bodyBytes: 3, complete: false },
    ]);
    expect(frame(responses(['GET']), encoder.encode('HTTP/1.0 200 OK\r\nserver: x\r\n\r\nabcdef'))).toEqual([
      { startLine: 'HTTP/1.0 200 OK', bodyBytes: 6, complete: true },
    ]);
  });

  it('reads requests: heads with their fields, a body only by its Content-Length, empty lines before ignored', () => {
    const framer = new MessageFramer('request');
    const heads: [string, string | undefined][] = [];
    const wire = encoder.encode(
      'GET /a HTTP/1.1\r\nRange: bytes=0-9\r\nX: 1\r\nx: 2\r\n\r\n\r\nPUT /b HTTP/1.1\r\nContent-Length: 4\r\n\r\nbodyHEAD /c HTTP/1.1\r\n\r\n',
    );
    for (const event of [...framer.push(wire.subarray(0, 20)), ...framer.push(wire.subarray(20))])
      if (event.kind === 'head')
        heads.push([event.head.startLine, event.head.fields.get('range') ?? event.head.fields.get('x')]);
    expect(heads).toEqual([
      ['GET /a HTTP/1.1', 'bytes=0-9'],
      ['PUT /b HTTP/1.1', undefined],
      ['HEAD /c HTTP/1.1', undefined],
    ]);
  });

  it('finds the same messages however the stream is cut', () => {
    const message = fc.record({
      status: fc.constantFrom(200, 206, 304, 404),
      size: fc.nat(300),
      chunked: fc.option(fc.integer({ min: 1, max: 64 }), { nil: undefined }),
      head: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 6 }), fc.array(fc.nat(4000)), (messages, cuts) => {
        const wire = encoder.encode(
          messages
            .map((m) =>
              m.head || m.status === 304
                ? `HTTP/1.1 ${m.status} S\r\ncontent-length: ${m.size}\r\n\r\n`
                : response(m.status, m.size, m.chunked),
            )
            .join(''),
        );
        const found = frame(
          responses(messages.map((m) => (m.head ? 'HEAD' : 'GET'))),
          wire,
          cuts.map((c) => c % (wire.length + 1)),
        );
        expect(found).toEqual(
          messages.map((m) => ({
            startLine: `HTTP/1.1 ${m.status} S`,
            bodyBytes: m.head || m.status === 304 ? 0 : m.size,
            complete: true,
          })),
        );
      }),
    );
  });
});
