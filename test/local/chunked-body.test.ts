import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChunkedBody, type ChunkedVerdict } from '../../local/chunked-body.ts';

const LIMIT = 64 * 1024;

/**
 * The verdict once every piece is pushed, stopping at the first that is not `more`; the pieces
 * never pushed are what follows a `done` body too, as the relay reads them next.
 */
function read(pieces: readonly (string | Buffer)[], limit = LIMIT): ChunkedVerdict {
  const body = new ChunkedBody(limit);
  let verdict: ChunkedVerdict = { kind: 'more' };
  const bytes = pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece, 'latin1') : piece));
  for (const [i, piece] of bytes.entries()) {
    verdict = body.push(piece);
    if (verdict.kind === 'done') return { ...verdict, rest: Buffer.concat([verdict.rest, ...bytes.slice(i + 1)]) };
    if (verdict.kind !== 'more') return verdict;
  }
  return verdict;
}

const statusOf = (coded: string): number | string => {
  const verdict = read([coded]);
  return verdict.kind === 'refused' ? verdict.status : verdict.kind;
};

describe('ChunkedBody (RFC 9112 §7.1)', () => {
  it('reads the chunks into one body and hands back what follows it', () => {
    const verdict = read(['5\r\nhello\r\n6\r\n world\r\n0\r\n\r\nGET / HTTP/1.1\r\n']);
    expect(verdict).toEqual({
      kind: 'done',
      body: Buffer.from('hello world'),
      rest: Buffer.from('GET / HTTP/1.1\r\n'),
    });
  });

  it('takes extensions, with optional whitespace before their ";" (§7.1.1, BWS), and drops trailers (§7.1.2)', () => {
    const verdict = read(['5;a=b\r\nhello\r\n1 ; name="x y"\r\n!\r\n0\r\nX-Sum: 1\r\nX-More: 2\r\n\r\n']);
    expect(verdict).toMatchObject({ kind: 'done', body: Buffer.from('hello!') });
  });

  it('refuses a chunk-size line with trailing whitespace, a bare LF or CR, or no hex digits with 400', () => {
    for (const coded of [
      '5 \r\nhello\r\n0\r\n\r\n',
      '5\t\r\nhello\r\n0\r\n\r\n',
      '5\nhello\r\n0\r\n\r\n',
      '5\rhello\r\n0\r\n\r\n',
      'zz\r\nhello\r\n0\r\n\r\n',
      '\r\n',
      '-5\r\n',
      '0x5\r\nhello\r\n0\r\n\r\n',
      ' 5\r\nhello\r\n',
    ]) {
      expect(statusOf(coded), JSON.stringify(coded)).toBe(400);
    }
  });

  it('refuses chunk data not followed by CRLF, and trailer lines not ending in CRLF, with 400', () => {
    for (const coded of [
      '5\r\nhelloXX0\r\n\r\n',
      '5\r\nhello\n0\r\n\r\n',
      '5\r\nhello\r0\r\n\r\n',
      '0\r\nX: 1\n\r\n',
      '0\r\n\n',
    ]) {
      expect(statusOf(coded), JSON.stringify(coded)).toBe(400);
    }
  });

  it('refuses a body larger than its limit with 413, from the chunk-size line alone', () => {
    expect(read(['10\r\n'], 15)).toMatchObject({ kind: 'refused', status: 413 });
    expect(read(['8\r\n12345678\r\n8\r\n'], 15)).toMatchObject({ kind: 'refused', status: 413 });
    expect(read(['8\r\n12345678\r\n7\r\n1234567\r\n0\r\n\r\n'], 15)).toMatchObject({ kind: 'done' });
  });

  it('refuses an endless chunk-size or trailer line instead of waiting for it', () => {
    expect(read([`5${';x'.repeat(600)}`])).toMatchObject({ kind: 'refused', status: 400 });
    expect(read(['0\r\n', `X: ${'y'.repeat(9000)}`])).toMatchObject({ kind: 'refused', status: 400 });
  });

  it('waits for more while the body is incomplete', () => {
    for (const coded of [
      '',
      '5',
      '5\r',
      '5\r\nhel',
      '5\r\nhello',
      '5\r\nhello\r',
      '5\r\nhello\r\n0\r\n',
      '5\r\nhello\r\n0\r\nX: 1\r\n',
    ]) {
      expect(statusOf(coded), JSON.stringify(coded)).toBe('more');
    }
  });
});

// --- properties ---------------------------------------------------------------------------

/** A body, the sizes it is cut into, and the extras a sender may add: the coding of that body. */
const coded = fc
  .record({
    body: fc.uint8Array({ maxLength: 600 }),
    cuts: fc.array(fc.integer({ min: 1, max: 97 }), { maxLength: 20 }),
    hexCase: fc.boolean(),
    extension: fc.constantFrom('', ';a', ';a=b', ' ;q="1"', '\t; x'),
    trailers: fc.array(fc.constantFrom('X-Sum: 1', 'Digest: sha-256=abc', 'X-Empty:'), { maxLength: 3 }),
    rest: fc.constantFrom('', 'GET / HTTP/1.1\r\n'),
  })
  .map(({ body, cuts, hexCase, extension, trailers, rest }) => {
    const data = Buffer.from(body);
    const parts: Buffer[] = [];
    let at = 0;
    for (const cut of [...cuts, data.length]) {
      if (at >= data.length) break;
      const chunk = data.subarray(at, at + cut);
      at += chunk.length;
      const size = hexCase ? chunk.length.toString(16).toUpperCase() : chunk.length.toString(16);
      parts.push(Buffer.from(`${size}${extension}\r\n`, 'latin1'), chunk, Buffer.from('\r\n', 'latin1'));
    }
    parts.push(Buffer.from(`0${extension}\r\n${trailers.map((t) => `${t}\r\n`).join('')}\r\n${rest}`, 'latin1'));
    return { body: data, wire: Buffer.concat(parts), rest: Buffer.from(rest, 'latin1') };
  });

/** The wire bytes cut into pieces, as the network may deliver them. */
function pieces(wire: Buffer, cuts: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const cut of cuts) {
    if (at >= wire.length) break;
    out.push(wire.subarray(at, at + cut));
    at += cut;
  }
  if (at < wire.length) out.push(wire.subarray(at));
  return out;
}

describe('ChunkedBody (properties)', () => {
  it('reads any coding of any body, delivered in any pieces, as exactly that body and what follows it', () => {
    fc.assert(
      fc.property(coded, fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 60 }), ({ body, wire, rest }, cuts) => {
        expect(read(pieces(wire, cuts))).toEqual({ kind: 'done', body, rest });
      }),
      { numRuns: 500 },
    );
  });

  it('refuses any chunk-size line that ends in whitespace with 400, however the bytes arrive', () => {
    fc.assert(
      fc.property(
        coded,
        fc.constantFrom(' ', '\t', '  ', ' \t'),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 60 }),
        ({ wire }, space, cuts) => {
          const text = wire.toString('latin1');
          const line = text.indexOf('\r\n');
          const spoiled = Buffer.from(
            `${text.slice(0, line).replace(/[\t ]*;.*$/, '')}${space}${text.slice(line)}`,
            'latin1',
          );
          expect(read(pieces(spoiled, cuts))).toMatchObject({ kind: 'refused', status: 400 });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never throws, and never answers `done` with more bytes than were pushed', () => {
    const bytes = fc.string({
      unit: fc.constantFrom('0', '1', '5', 'a', 'F', '\r', '\n', ' ', ';', 'x', ':'),
      maxLength: 80,
    });
    fc.assert(
      fc.property(bytes, (text) => {
        const verdict = read([text]);
        if (verdict.kind === 'done') expect(verdict.body.length + verdict.rest.length).toBeLessThanOrEqual(text.length);
      }),
      { numRuns: 2000 },
    );
  });
});
