// The sim's trace: one request a line, so an operator can write one by hand, convert their CDN's logs into one
// (log-convert.ts) or keep a generated one beside a result. Plain text, whitespace-separated:
//
//   # anything after a '#' that is not '#object' is a comment
//   #object <path> <size>          the catalogue: every path the trace asks, and its size in bytes
//   <ms> <location> <method> <path> <range|-> [key=value …]
//
// <ms> is the request's time from the trace's start (milliseconds, ≥ 0, lines in any order); <location> the index of
// the location its client is at (0-based, the topology's order); <method> GET, HEAD or PURGE (a purge of the path at
// that location); <range> a Range field value (RFC 9110 §14.2, `bytes=0-`) or `-` for none. Optional fields: `abort=N`
// (the client closes the connection once it has read N body bytes, as a player that seeks does), `tag=T` (a token
// the report groups by: `crowd` marks the cold crowd).

type TraceMethod = 'GET' | 'HEAD' | 'PURGE';

export interface TraceRequest {
  atMs: number;
  location: number;
  method: TraceMethod;
  /** An absolute path, no spaces: `/static/a1.css`. */
  path: string;
  /** The Range field value, absent for none. */
  range?: string;
  /** Body bytes the client reads before it closes the connection; absent: it reads to the end. */
  abortAfter?: number;
  tag?: string;
}

export interface TraceObject {
  path: string;
  size: number;
}

export interface Trace {
  objects: TraceObject[];
  /** Sorted by time (parse sorts; the generator makes them so). */
  requests: TraceRequest[];
}

const METHODS: ReadonlySet<string> = new Set<TraceMethod>(['GET', 'HEAD', 'PURGE']);
const PATH = /^\/[!-~]*$/;
const RANGE = /^bytes=[0-9,\- ]+$/;
const TOKEN = /^[A-Za-z0-9._-]+$/;

class TraceError extends Error {
  constructor(line: number, message: string) {
    super(`trace line ${line}: ${message}`);
  }
}

/** The trace a text says; throws TraceError naming the first line it cannot read. */
export function parseTrace(text: string): Trace {
  const objects = new Map<string, TraceObject>();
  const requests: { request: TraceRequest; number: number }[] = [];
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    const number = index + 1;
    if (line.startsWith('#object')) {
      const object = parseObject(line, number);
      objects.set(object.path, object);
    } else if (line !== '' && !line.startsWith('#')) {
      requests.push({ request: parseRequest(line, number), number });
    }
  }
  for (const { request, number } of requests)
    if (!objects.has(request.path)) throw new TraceError(number, `no '#object ${request.path} <size>' line`);
  // Stable: requests of one time keep their order in the text.
  const sorted = requests.map((entry) => entry.request).sort((a, b) => a.atMs - b.atMs);
  return { objects: [...objects.values()], requests: sorted };
}

/** The text of a trace, which parseTrace reads back to the same trace. */
export function formatTrace(trace: Trace): string {
  const lines = ['# tiercache sim trace: <ms> <location> <method> <path> <range|-> [abort=N] [tag=T] (docs/sim.md)'];
  for (const object of trace.objects) lines.push(`#object ${object.path} ${object.size}`);
  for (const request of trace.requests) lines.push(formatRequest(request));
  return `${lines.join('\n')}\n`;
}

function formatRequest(request: TraceRequest): string {
  const fields = [String(request.atMs), String(request.location), request.method, request.path, request.range ?? '-'];
  if (request.abortAfter !== undefined) fields.push(`abort=${request.abortAfter}`);
  if (request.tag !== undefined) fields.push(`tag=${request.tag}`);
  return fields.join(' ');
}

/** How many locations a trace uses: its highest location index plus one. */
export function traceLocations(trace: Trace): number {
  return trace.requests.reduce((most, request) => Math.max(most, request.location + 1), 0);
}

function parseObject(line: string, number: number): TraceObject {
  const [, path = '', size = '', ...rest] = line.split(/\s+/);
  if (!PATH.test(path)) throw new TraceError(number, `expected an absolute path, got ${JSON.stringify(path)}`);
  if (!/^\d+$/.test(size) || rest.length > 0)
    throw new TraceError(number, `expected '#object <path> <size>', got ${JSON.stringify(line)}`);
  return { path, size: Number(size) };
}

function parseRequest(line: string, number: number): TraceRequest {
  const [at = '', location = '', method = '', path = '', range = '', ...options] = line.split(/\s+/);
  if (!/^\d+(\.\d+)?$/.test(at)) throw new TraceError(number, `expected a time in ms, got ${JSON.stringify(at)}`);
  if (!/^\d+$/.test(location))
    throw new TraceError(number, `expected a location index, got ${JSON.stringify(location)}`);
  if (!METHODS.has(method)) throw new TraceError(number, `expected GET, HEAD or PURGE, got ${JSON.stringify(method)}`);
  if (!PATH.test(path)) throw new TraceError(number, `expected an absolute path, got ${JSON.stringify(path)}`);
  if (range !== '-' && !RANGE.test(range))
    throw new TraceError(number, `expected a Range value (bytes=…) or '-', got ${JSON.stringify(range)}`);
  const request: TraceRequest = { atMs: Number(at), location: Number(location), method: method as TraceMethod, path };
  if (range !== '-') request.range = range;
  for (const option of options) {
    const [key, value = ''] = option.split('=', 2);
    if (key === 'abort' && /^\d+$/.test(value)) request.abortAfter = Number(value);
    else if (key === 'tag' && TOKEN.test(value)) request.tag = value;
    else throw new TraceError(number, `expected abort=N or tag=T, got ${JSON.stringify(option)}`);
  }
  return request;
}
