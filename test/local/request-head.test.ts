import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bareLineEnd, readHead, withContentLength } from '../../local/request-head.ts';

const TOKEN = { name: 'x-tiercache-front', value: 'secret' };
const head = (lines: string[]): string => `${lines.join('\r\n')}\r\n\r\n`;
const read = (lines: string[]) => readHead(head(lines), TOKEN);
const status = (lines: string[]): number | string => {
  const verdict = read(lines);
  return verdict.ok === true ? 'ok' : verdict.ok === 'options' ? 'options' : verdict.status;
};

describe('readHead (RFC 9112)', () => {
  it("forwards a plain request in one spelling, with the front's own field in place of any the client sent", () => {
    const verdict = read(['GET /a?b=c HTTP/1.1', 'Host: cdn.example', 'Accept: */*', 'X-Tiercache-Front: forged']);
    expect(verdict).toEqual({
      ok: true,
      head: head(['GET /a?b=c HTTP/1.1', 'Host: cdn.example', 'accept: */*', 'x-tiercache-front: secret']),
      body: { kind: 'none' },
      close: false,
      expectsContinue: false,
    });
  });

  it('refuses a Host that is missing, repeated or not a host (§3.2)', () => {
    for (const host of ['user@host', 'host:99999', 'host:80:80', 'a b', 'x%'.repeat(100), '', 'host:0', 'a,b'])
      expect(status(['GET / HTTP/1.1', `Host: ${host}`]), host).toBe(400);
    expect(status(['GET / HTTP/1.1'])).toBe(400);
    expect(status(['GET / HTTP/1.0'])).toBe(400);
    expect(status(['GET / HTTP/1.1', 'Host: a', 'Host: b'])).toBe(400);
    for (const host of ['cdn.example', 'cdn.example:8443', '127.0.0.1', '[::1]:8787', 'my_site.local'])
      expect(status(['GET / HTTP/1.1', `Host: ${host}`]), host).toBe('ok');
  });

  it('refuses ambiguous or malformed framing (§6.1, §6.3: Transfer-Encoding with Content-Length is refused)', () => {
    expect(status(['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: chunked', 'Content-Length: 5'])).toBe(400);
    expect(status(['POST / HTTP/1.1', 'Host: a', 'Content-Length: 5', 'Content-Length: 5'])).toBe(400);
    for (const value of ['abc', '-1', '+5', '0x5', '5, 6', '', '1e3'])
      expect(status(['POST / HTTP/1.1', 'Host: a', `Content-Length: ${value}`]), value).toBe(400);
    expect(status(['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: gzip, chunked'])).toBe(501);
    expect(read(['POST / HTTP/1.1', 'Host: a', 'Transfer-Encoding: Chunked'])).toMatchObject({
      ok: true,
      body: { kind: 'chunked' },
    });
    expect(read(['POST / HTTP/1.1', 'Host: a', 'Content-Length: 12'])).toMatchObject({
      ok: true,
      body: { kind: 'length', length: 12 },
    });
  });

  it('takes the absolute form, its authority as the Host (§3.2.2), and refuses other forms outside their method', () => {
    expect(read(['GET http://evil.example/index.html HTTP/1.1', 'Host: a'])).toMatchObject({
      ok: true,
      head: head(['GET /index.html HTTP/1.1', 'Host: evil.example', 'x-tiercache-front: secret']),
    });
    expect(status(['GET * HTTP/1.1', 'Host: a'])).toBe(400);
    expect(status(['OPTIONS * HTTP/1.1', 'Host: a'])).toBe('options');
    expect(status(['GET index.html HTTP/1.1', 'Host: a'])).toBe(400);
    expect(status(['GET ftp://x/ HTTP/1.1', 'Host: a'])).toBe(400);
    expect(status(['CONNECT evil.example:443 HTTP/1.1', 'Host: evil.example:443'])).toBe(405);
  });

  it('refuses malformed lines: folds, a space before the colon, bare CR or LF, versions, control characters', () => {
    expect(status(['GET / HTTP/1.1', 'Host: a', 'X: 1', ' folded'])).toBe(400);
    expect(status(['GET / HTTP/1.1', 'Host : a'])).toBe(400);
    expect(readHead('GET / HTTP/1.1\nHost: a\r\n\r\n', TOKEN)).toMatchObject({ ok: false, status: 400 });
    expect(status(['GET / HTTP/2.0', 'Host: a'])).toBe(505);
    expect(status(['GET / HTTP/1.1 extra', 'Host: a'])).toBe(400);
    expect(status(['G(T / HTTP/1.1', 'Host: a'])).toBe(400);
    expect(status(['GET /\x01 HTTP/1.1', 'Host: a'])).toBe(400);
    expect(status(['GET / HTTP/1.1', 'Host: a', 'X: a\x00b'])).toBe(400);
    expect(status([`GET /${'a'.repeat(9000)} HTTP/1.1`, 'Host: a'])).toBe(414);
  });

  it('finds a bare LF or CR in a head before it ends, so the front can refuse it at once (§2.2)', () => {
    for (const text of [
      'GET / HTTP/1.1\nHost',
      'GET / HTTP/1.1\r\nHost: a\n',
      '\n',
      'GET / HTTP/1.1\rHost',
      'GET / HTTP/1.1\r\nX: a\r\r\n',
    ])
      expect(bareLineEnd(text), JSON.stringify(text)).toBe(true);
    for (const text of ['GET / HTTP/1.1\r\nHost: a\r\n\r\n', 'GET / HTTP/1.1\r', 'GET / HTTP/1.1\r\nHo', ''])
      expect(bareLineEnd(text), JSON.stringify(text)).toBe(false);
  });

  it('forwards the head of a chunked request without its framing or expectation, for the front to add a Content-Length', () => {
    const verdict = read([
      'PUT /up HTTP/1.1',
      'Host: a',
      'Transfer-Encoding: chunked',
      'Expect: 100-continue',
      'X-A: 1',
    ]);
    expect(verdict).toEqual({
      ok: true,
      head: head(['PUT /up HTTP/1.1', 'Host: a', 'x-a: 1', 'x-tiercache-front: secret']),
      body: { kind: 'chunked' },
      close: false,
      expectsContinue: true,
    });
    if (verdict.ok !== true) throw new Error('expected the head accepted');
    expect(withContentLength(verdict.head, 11)).toBe(
      head(['PUT /up HTTP/1.1', 'Host: a', 'x-a: 1', 'x-tiercache-front: secret', 'content-length: 11']),
    );
    expect(readHead(withContentLength(verdict.head, 11), TOKEN)).toMatchObject({
      ok: true,
      body: { kind: 'length', length: 11 },
    });
  });

  it('reads 100-continue as an expectation of HTTP/1.1 clients only (RFC 9110 §10.1.1)', () => {
    expect(read(['POST / HTTP/1.1', 'Host: a', 'Expect: 100-Continue', 'Content-Length: 3'])).toMatchObject({
      ok: true,
      expectsContinue: true,
    });
    expect(read(['POST / HTTP/1.0', 'Host: a', 'Expect: 100-continue', 'Content-Length: 3'])).toMatchObject({
      ok: true,
      expectsContinue: false,
    });
    expect(read(['POST / HTTP/1.1', 'Host: a', 'Content-Length: 3'])).toMatchObject({
      ok: true,
      expectsContinue: false,
    });
  });

  it('never throws, and what it forwards it would forward again unchanged (property)', () => {
    const line = fc.string({
      unit: fc.constantFrom(
        'G',
        'E',
        'T',
        ' ',
        '/',
        ':',
        'H',
        'o',
        's',
        't',
        'a',
        '1',
        '.',
        '*',
        '\t',
        'x',
        '-',
        'C',
        'l',
        'n',
        'e',
        'g',
        'h',
        '%',
      ),
      maxLength: 30,
    });
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), (lines) => {
        const verdict = readHead(head(['GET / HTTP/1.1', ...lines]), TOKEN);
        if (verdict.ok === true) expect(readHead(verdict.head, TOKEN)).toEqual(verdict);
      }),
    );
  });
});
