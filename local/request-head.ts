// What the local stack's front accepts of an HTTP/1.1 request head, as Cloudflare's front end would
// before a Worker runs: pure rules over the bytes of a head, after RFC 9112.

import { splitList } from '../shared/http/header-list.ts';

/** A head accepted: re-written, with the framing of its body. */
export interface AcceptedHead {
  ok: true;
  /**
   * The head to forward: request line in origin-form, one Host, CRLF line ends. For a chunked
   * body it carries no framing (no Transfer-Encoding, no Expect): the front reads that body
   * whole (chunked-body.ts) and forwards it with the Content-Length withContentLength adds.
   */
  head: string;
  body: { kind: 'none' } | { kind: 'length'; length: number } | { kind: 'chunked' };
  /** The client asked for the connection to end after this exchange (or spoke HTTP/1.0 without keep-alive). */
  close: boolean;
  /** The client waits for `100 Continue` before it sends the body (RFC 9110 §10.1.1). */
  expectsContinue: boolean;
}

/** A head refused: the status and a short reason; the connection is closed after the answer. */
export interface RefusedHead {
  ok: false;
  status: number;
  reason: string;
  /** Extra response headers (Allow for 405 …). */
  headers?: Record<string, string>;
}

/** `OPTIONS *` (RFC 9110 §9.3.7): a question about the server, answered by the front itself. */
interface ServerOptions {
  ok: 'options';
  close: boolean;
}

export type HeadVerdict = AcceptedHead | RefusedHead | ServerOptions;

export const MAX_HEAD_BYTES = 64 * 1024;
const MAX_TARGET_BYTES = 8 * 1024;
const MAX_FIELDS = 200;
/** tchar (RFC 9110 §5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, as a request-target must be (RFC 9112 §3.2; RFC 3986 allows no more). */
const TARGET_CHARS = /^[\x21-\x7e]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/**
 * uri-host [":" port] (RFC 9110 §7.2), of the kind a Worker's URL can carry: a DNS-style name
 * (letters, digits, "-", ".", "_"), an IPv4 address or an IP-literal. RFC 3986's reg-name also
 * allows sub-delims and percent-encodings, which no site is named by and workerd cannot parse.
 */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._]+)(?::(\d{1,5}))?$/;

const refuse = (status: number, reason: string, headers?: Record<string, string>): RefusedHead => ({
  ok: false,
  status,
  reason,
  ...(headers ? { headers } : {}),
});

/** The refusal of a head with a bare CR or LF (bareLineEnd). */
export const BARE_LINE_END: RefusedHead = refuse(400, 'malformed request: lines must end in CRLF');

/** The request line's three parts, each well-formed and of a version served. */
interface RequestLine {
  method: string;
  target: string;
  version: 'HTTP/1.1' | 'HTTP/1.0';
}

/** The request-target read: the path to forward (or `*`) and the host an absolute-form names. */
interface TargetForm {
  path: string;
  hostFromTarget?: string;
}

const refused = <T>(value: T | RefusedHead): value is RefusedHead =>
  typeof value === 'object' && value !== null && 'ok' in value && value.ok === false;

/**
 * `text`: the head as latin1, through its final CRLF CRLF. `token`: a field the front adds for
 * the edge (name and value), replacing any the client sent.
 *
 * workerd's own parser answers many malformed requests with a bare 500 (a Host that is not a host,
 * an absolute-form or asterisk-form target, CONNECT, a Content-Length that is not a number) and lets
 * Transfer-Encoding with Content-Length through, answering one connection twice; the front refuses
 * those with a clear 4xx and closes, and hands workerd a head it re-wrote in one spelling, so the
 * two can never read a request differently.
 */
export function readHead(text: string, token: { name: string; value: string }): HeadVerdict {
  if (text.length > MAX_HEAD_BYTES) return refuse(431, 'request header fields too large');
  if (bareLineEnd(text) || text.endsWith('\r')) return BARE_LINE_END;
  const lines = text.slice(0, -4).split('\r\n');
  const line = readRequestLine(lines.shift() ?? '');
  if (refused(line)) return line;

  const fields = readFields(lines);
  if (!Array.isArray(fields)) return fields;
  const named = (name: string): string[] => fields.filter(([n]) => n === name).map(([, v]) => v);

  // RFC 9110 §9.3.6: a tunnel is not what a CDN in front of a bucket offers (405, with Allow from the front).
  if (line.method === 'CONNECT') return refuse(405, 'CONNECT is not served here: this is not a proxy');
  const target = readTarget(line);
  if (refused(target)) return target;
  const host = readHost(named('host'), target.hostFromTarget);
  if (refused(host)) return host;
  const body = readFraming(named('content-length'), named('transfer-encoding'), line.version);
  if (refused(body)) return body;

  const connection = splitList(named('connection').join(',')).map((token) => token.toLowerCase());
  const close = connection.includes('close') || (line.version === 'HTTP/1.0' && !connection.includes('keep-alive'));
  if (target.path === '*') return { ok: 'options', close };
  // RFC 9110 §10.1.1: only an HTTP/1.1 client waits for 100 Continue.
  const expectsContinue =
    line.version === 'HTTP/1.1' &&
    splitList(named('expect').join(',')).some((value) => value.toLowerCase() === '100-continue');

  // A chunked body is forwarded whole with a Content-Length, its expectation met by the front.
  const framing = body.kind === 'chunked' ? ['transfer-encoding', 'expect'] : [];
  const kept = fields.filter(([name]) => name !== 'host' && name !== token.name && !framing.includes(name));
  const head = [
    `${line.method} ${target.path} HTTP/1.1`,
    `Host: ${host}`,
    ...kept.map(([name, value]) => `${name}: ${value}`),
    `${token.name}: ${token.value}`,
    '',
    '',
  ].join('\r\n');
  return { ok: true, head, body, close, expectsContinue };
}

/**
 * Whether the bytes of a head, complete or not, hold a bare LF or a CR followed by anything
 * but LF (RFC 9112 §2.2 lets a recipient read a bare LF as a line end; the front refuses it,
 * so it and workerd can never split a head differently). A CR that ends them may be followed
 * by its LF in the next bytes.
 */
export function bareLineEnd(text: string): boolean {
  return /\r(?=[^\n])|(?<!\r)\n/.test(text);
}

/** A forwarded head (ending in CRLF CRLF) with the Content-Length of the body read for it. */
export function withContentLength(head: string, length: number): string {
  return `${head.slice(0, -2)}content-length: ${length}\r\n\r\n`;
}

function readRequestLine(requestLine: string): RequestLine | RefusedHead {
  const parts = requestLine.split(' ');
  if (parts.length !== 3) return refuse(400, 'malformed request line: expected "METHOD target HTTP/1.1"');
  const [method = '', target = '', version = ''] = parts;
  if (!TOKEN.test(method)) return refuse(400, 'malformed request line: the method is not a token');
  if (!/^HTTP\/\d\.\d$/.test(version)) return refuse(400, 'malformed request line: the version is not HTTP/x.y');
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') return refuse(505, 'only HTTP/1.1 and HTTP/1.0 are served');
  if (target.length > MAX_TARGET_BYTES) return refuse(414, 'the request target is too long');
  if (!TARGET_CHARS.test(target)) return refuse(400, 'malformed request target');
  return { method, target, version };
}

/** origin-form, asterisk-form (OPTIONS only) or absolute-form; the front forwards origin-form. */
function readTarget({ method, target }: RequestLine): TargetForm | RefusedHead {
  if (target === '*')
    return method === 'OPTIONS' ? { path: '*' } : refuse(400, 'malformed request target: "*" is for OPTIONS only');
  if (target.startsWith('/')) return { path: target };
  // RFC 9112 §3.2.2: absolute-form must be accepted; its authority is the host, whatever Host says.
  const absolute = /^(https?):\/\/([^/?#]*)([^#]*)$/i.exec(target);
  if (!absolute) return refuse(400, 'malformed request target: expected a path starting with "/"');
  const path = absolute[3] || '/';
  return { path: path.startsWith('/') ? path : `/${path}`, hostFromTarget: absolute[2] ?? '' };
}

/** The one host the request is for: the absolute-form's authority, else its single Host field. */
function readHost(hosts: readonly string[], hostFromTarget: string | undefined): string | RefusedHead {
  // RFC 9112 §3.2 requires one in HTTP/1.1; a Worker's URL needs one whatever the version.
  if (hosts.length === 0 && hostFromTarget === undefined) return refuse(400, 'a Host header field is required');
  if (hosts.length > 1) return refuse(400, 'more than one Host header field');
  const host = hostFromTarget ?? hosts[0] ?? '';
  return validHost(host) ? host : refuse(400, 'the Host is not a host name with an optional port');
}

/** How the body is framed, from the Content-Length and Transfer-Encoding fields (RFC 9112 §6). */
function readFraming(
  lengths: readonly string[],
  codings: readonly string[],
  version: RequestLine['version'],
): AcceptedHead['body'] | RefusedHead {
  if (codings.length > 0 && lengths.length > 0)
    return refuse(400, 'Transfer-Encoding and Content-Length together: the framing is ambiguous');
  if (codings.length > 0) {
    if (version === 'HTTP/1.0') return refuse(400, 'Transfer-Encoding in an HTTP/1.0 request');
    // RFC 9112 §6.1: chunked must be the final (here: the only) coding.
    if (codings.length !== 1 || (codings[0] ?? '').trim().toLowerCase() !== 'chunked')
      return refuse(501, 'only the chunked transfer coding is understood');
    return { kind: 'chunked' };
  }
  if (lengths.length === 0) return { kind: 'none' };
  if (lengths.length > 1) return refuse(400, 'more than one Content-Length');
  const value = (lengths[0] ?? '').trim();
  if (!/^\d{1,15}$/.test(value)) return refuse(400, 'Content-Length is not a number of bytes');
  const length = Number(value);
  return length > 0 ? { kind: 'length', length } : { kind: 'none' };
}

/** The field lines as [lower-case name, trimmed value], or why they are refused. */
function readFields(lines: readonly string[]): [string, string][] | RefusedHead {
  if (lines.length > MAX_FIELDS) return refuse(431, 'too many header fields');
  const fields: [string, string][] = [];
  for (const line of lines) {
    // RFC 9112 §5.2: obs-fold is refused; §5.1: no whitespace between name and colon.
    if (line.startsWith(' ') || line.startsWith('\t'))
      return refuse(400, 'malformed header: folded lines are not accepted');
    const colon = line.indexOf(':');
    if (colon <= 0) return refuse(400, 'malformed header: expected "name: value"');
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) return refuse(400, 'malformed header: the field name is not a token');
    const value = line.slice(colon + 1).trim();
    if (!FIELD_VALUE.test(value)) return refuse(400, 'malformed header: control characters in a field value');
    fields.push([name.toLowerCase(), value]);
  }
  return fields;
}

function validHost(host: string): boolean {
  const match = HOST.exec(host);
  if (!match || host.length > 253 + 6) return false;
  const port = match[1];
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/** A short plain-text answer of the front's, closing the connection. */
export function refusal(status: number, reason: string, headers: Record<string, string> = {}): string {
  const body = `${status} ${reason}\n`;
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n${extra}\r\n${body}`;
}

const STATUS_TEXT: Record<number, string> = {
  204: 'No Content',
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
  505: 'HTTP Version Not Supported',
};

/** The answer to `OPTIONS *`: what the server as a whole allows. */
export function serverOptions(allow: string, close: boolean): string {
  return `HTTP/1.1 204 No Content\r\nallow: ${allow}\r\ncache-control: no-store\r\n${close ? 'connection: close\r\n' : ''}\r\n`;
}
