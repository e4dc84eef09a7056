// A trace from a CDN's access log, so an operator replays their own traffic: the NCSA combined format that nginx
// (`log_format combined`, its default) and Apache (`LogFormat … combined`) write, one request a line:
//
//   203.0.113.9 - - [10/Oct/2025:13:55:36 +0000] "GET /v/1.mp4 HTTP/1.1" 206 1048576 "-" "Mozilla/5.0" "bytes=0-"
//
// The combined format has no Range: a last quoted field `"bytes=…"` is read as the request's Range where the log has
// one (nginx: append `"$http_range"` to the log_format; Apache: `"%{Range}i"`); without it a request is replayed
// whole. The client's address picks its location (a hash, so one client stays at one location). Each object's size
// is the most any line says of it: a 200's body bytes, or a range's end. A 200 or 206 that sent fewer bytes than it
// asked was cut by its client: it is replayed with `abort=` those bytes. Lines other than GET and HEAD, and answers
// other than 2xx and 304, are left out (counted in `skipped`).

import { singleRange } from './byte-range.ts';
import type { Trace, TraceRequest } from './trace.ts';

const LINE =
  /^(\S+) \S+ \S+ \[(\d{2})\/(\w{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})\] "(\S+) (\S+)(?: [^"]*)?" (\d{3}) (\d+|-)(?: "[^"]*" "[^"]*")?(?: "(bytes=[^"]*|-)")?/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export interface ConvertedLog {
  trace: Trace;
  /** Lines read as requests. */
  converted: number;
  /** Lines left out: not the format, not GET/HEAD, or not a 2xx or 304. */
  skipped: number;
}

interface LogLine {
  client: string;
  atMs: number;
  method: 'GET' | 'HEAD';
  path: string;
  status: number;
  bytes: number;
  range?: string;
}

export function convertLog(text: string, locations: number): ConvertedLog {
  if (!Number.isInteger(locations) || locations < 1) throw new RangeError(`expected ≥ 1 location, got ${locations}`);
  const lines: LogLine[] = [];
  let skipped = 0;
  for (const raw of text.split('\n')) {
    if (raw.trim() === '') continue;
    const line = parseLogLine(raw);
    if (line === undefined) skipped += 1;
    else lines.push(line);
  }
  const sizes = new Map<string, number>();
  for (const line of lines) sizes.set(line.path, Math.max(sizes.get(line.path) ?? 0, sizeSaid(line)));
  const first = Math.min(...lines.map((line) => line.atMs));
  const requests = lines.map((line): TraceRequest => {
    const request: TraceRequest = {
      atMs: line.atMs - first,
      location: hash(line.client) % locations,
      method: line.method,
      path: line.path,
    };
    const size = sizes.get(line.path) ?? 0;
    if (line.range !== undefined) request.range = line.range;
    const asked = singleRange(line.range, size);
    const wanted = typeof asked === 'object' ? asked.end - asked.start + 1 : size;
    if (line.method === 'GET' && line.status !== 304 && line.bytes < wanted) request.abortAfter = line.bytes;
    return request;
  });
  requests.sort((a, b) => a.atMs - b.atMs);
  return {
    trace: { objects: [...sizes].map(([path, size]) => ({ path, size })), requests },
    converted: lines.length,
    skipped,
  };
}

/** One line of the combined format; undefined when it is not one the trace takes. */
function parseLogLine(raw: string): LogLine | undefined {
  const match = LINE.exec(raw.trim());
  if (match === null) return undefined;
  const [
    ,
    client = '',
    day,
    month = '',
    year,
    hour,
    minute,
    second,
    zone = '+0000',
    method,
    target = '',
    status,
    bytes,
  ] = match;
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const code = Number(status);
  if (!((code >= 200 && code < 300) || code === 304)) return undefined;
  const path = target.split('?', 1)[0] ?? '';
  if (!/^\/[!-~]*$/.test(path)) return undefined;
  const offsetMinutes = (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
  const atMs =
    Date.UTC(Number(year), MONTHS.indexOf(month), Number(day), Number(hour), Number(minute), Number(second)) -
    offsetMinutes * 60_000;
  const line: LogLine = { client, atMs, method, path, status: code, bytes: bytes === '-' ? 0 : Number(bytes) };
  const range = match[13];
  if (range !== undefined && range !== '-') line.range = range;
  return line;
}

/** The least size the line says the object has. */
function sizeSaid(line: LogLine): number {
  if (line.method === 'HEAD' || line.status === 304) return 0;
  const range = /^bytes=(\d*)-(\d*)$/.exec(line.range ?? '');
  if (line.status === 206 && range) {
    const start = Number(range[1] || 0);
    return range[2] ? Number(range[2]) + 1 : start + line.bytes;
  }
  return line.bytes;
}

/** FNV-1a of the client's address: a client stays at one location. */
function hash(text: string): number {
  let value = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) value = Math.imul(value ^ text.charCodeAt(i), 0x01000193);
  return value >>> 0;
}
