// Purge on upload (docs/storj.md "Purge on upload"): Storj's bucket event notifications, pushed by Google Pub/Sub, read
// into what they purge. No I/O here: the push's body in, the events (or the reason there are none) out.
//
// The push (cloud.google.com/pubsub/docs/push): a JSON object `{"message": {"data": base64, "messageId",
// "publishTime", "attributes"}, "subscription"}`. Its data is Storj's event, S3's event message structure version 2.1
// (docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html): `{"Records": [{"eventName":
// "ObjectCreated:Put", "eventTime", "s3": {"bucket": {"name"}, "object": {"key", "sequencer"}}}]}`, one record a
// message (Storj's design, github.com/storj/design-docs 20250828-bucket-eventing-phase-1.md), or S3's test event
// (`{"Event": "s3:TestEvent"}`), acknowledged and ignored.

import { encodeKeyForPath } from '../request/object-key.ts';
import { PURGE_BODY_LIMIT } from './purge-rules.ts';

/** What an event does to the cache: `created` revalidates the object (a soft purge), `removed` drops it (a hard one). */
type BucketEventKind = 'created' | 'removed';

/** One object event of a push, as read. */
export interface BucketEvent {
  kind: BucketEventKind;
  /** The event's name as sent (`ObjectCreated:Put`, `s3:ObjectRemoved:Delete`). */
  name: string;
  bucket: string;
  /**
   * The object keys the event may name: S3 URL-encodes a key in its events (`+` a space), so the decoded key first,
   * then the key as written when the two differ (a sender that does not encode: `a+b.txt` is then purged as itself
   * too). Over-purging a key nobody asked for costs a refetch; missing the one meant would serve stale bytes.
   */
  keys: string[];
  /** ms epoch of `eventTime`; NaN when absent or unreadable (the sequencer or the order in the push decides then). */
  eventTime: number;
  /** S3's `sequencer` (hex; a later event of the same key has a greater one), '' when absent. */
  sequencer: string;
}

/** A push, as read: the message's id (what makes a redelivery the same push), and the events it carries. */
interface BucketPush {
  messageId: string;
  /** The subscription that pushed it ('' when absent). */
  subscription: string;
  /** The object events, at most one per bucket and key: the newest of the push's (newestPerKey). */
  events: BucketEvent[];
  /** What the push held that purges nothing, and why (a test event, an event of another kind). */
  ignored: string[];
}

export type PushParse = { ok: true; push: BucketPush } | { ok: false; reason: string };

/** A push's body, at most: Pub/Sub's data is an S3 event (at most 64 KB at AWS), base64 in JSON. */
export const EVENTS_BODY_LIMIT = PURGE_BODY_LIMIT;
/** Object events one push may carry (each becomes a record or two). */
export const MAX_PUSH_EVENTS = 100;
/** Longest message id kept (Pub/Sub's are decimal numbers of about 16 digits). */
const MAX_MESSAGE_ID = 256;
/** S3 limits a key to 1024 bytes; URL-encoded it is at most three times that. */
const MAX_ENCODED_KEY = 3 * 1024;

/** The body of a push read, or why it is not one (a message saying what was expected and what arrived). Never throws. */
export function parsePush(text: string): PushParse {
  const envelope = jsonObject(text, 'a Pub/Sub push, a JSON object like {"message": {"data": …, "messageId": …}}');
  if (typeof envelope === 'string') return fail(envelope);
  const message = envelope.message;
  if (!isObject(message)) return fail(`expected "message" to be an object, got ${describeValue(message)}`);
  const messageId = message.messageId ?? message.message_id;
  if (typeof messageId !== 'string' || messageId === '' || messageId.length > MAX_MESSAGE_ID)
    return fail(`expected "message.messageId" to be a non-empty string, got ${describeValue(messageId)}`);
  const subscription = typeof envelope.subscription === 'string' ? envelope.subscription : '';
  if (typeof message.data !== 'string' || message.data === '')
    return fail(`expected "message.data" to be the event, base64-encoded, got ${describeValue(message.data)}`);
  const data = base64Text(message.data);
  if (data === undefined)
    return fail(`expected "message.data" to be base64 of UTF-8 text, got ${describe(message.data)}`);
  const read = readEvents(data);
  if (typeof read === 'string') return fail(read);
  return { ok: true, push: { messageId, subscription, events: newestPerKey(read.events), ignored: read.ignored } };
}

/** The S3 event message in a push's data: its object events, and what it holds that purges nothing. */
function readEvents(text: string): { events: BucketEvent[]; ignored: string[] } | string {
  const body = jsonObject(text, 'an S3 event message, a JSON object like {"Records": [...]}, in "message.data"');
  if (typeof body === 'string') return body;
  // S3's test event (sent when a notification is configured): nothing to purge.
  if (body.Event === 's3:TestEvent' && body.Records === undefined) return { events: [], ignored: ['s3:TestEvent'] };
  const records = body.Records;
  if (!Array.isArray(records) || records.length === 0)
    return `expected "Records" in the event to be a non-empty array, got ${describeValue(records)}`;
  if (records.length > MAX_PUSH_EVENTS)
    return `expected at most ${MAX_PUSH_EVENTS} records in one event, got ${records.length}`;
  const events: BucketEvent[] = [];
  const ignored: string[] = [];
  for (const [i, record] of (records as unknown[]).entries()) {
    const read = readRecord(record, i);
    if (typeof read === 'string') return read;
    if ('ignored' in read) ignored.push(read.ignored);
    else events.push(read);
  }
  return { events, ignored };
}

function readRecord(record: unknown, i: number): BucketEvent | { ignored: string } | string {
  const at = `Records[${i}]`;
  if (!isObject(record)) return `expected ${at} to be an object, got ${describeValue(record)}`;
  const name = record.eventName;
  if (typeof name !== 'string' || name === '')
    return `expected ${at}.eventName to be a string like "ObjectCreated:Put", got ${describeValue(name)}`;
  const kind = kindOf(name);
  if (kind === undefined) return { ignored: `${at}: ${describe(name)} is neither ObjectCreated nor ObjectRemoved` };
  const s3 = record.s3;
  if (!isObject(s3)) return `expected ${at}.s3 to be an object, got ${describeValue(s3)}`;
  const bucket = isObject(s3.bucket) ? s3.bucket.name : undefined;
  if (typeof bucket !== 'string' || bucket === '')
    return `expected ${at}.s3.bucket.name to be a non-empty string, got ${describeValue(bucket)}`;
  const object = s3.object;
  if (!isObject(object)) return `expected ${at}.s3.object to be an object, got ${describeValue(object)}`;
  const written = object.key;
  if (typeof written !== 'string' || written === '' || written.length > MAX_ENCODED_KEY)
    return `expected ${at}.s3.object.key to be a non-empty string of at most ${MAX_ENCODED_KEY} characters, got ${describeValue(written)}`;
  const sequencer = object.sequencer ?? '';
  if (typeof sequencer !== 'string' || !/^[0-9A-Fa-f]{0,64}$/.test(sequencer))
    return `expected ${at}.s3.object.sequencer to be a hexadecimal string, got ${describeValue(sequencer)}`;
  const decoded = decodeEventKey(written);
  const keys = decoded === undefined || decoded === written ? [written] : [decoded, written];
  const eventTime = typeof record.eventTime === 'string' ? Date.parse(record.eventTime) : Number.NaN;
  return { kind, name, bucket, keys, eventTime, sequencer: sequencer.toUpperCase() };
}

/** `ObjectCreated:*` and `ObjectRemoved:*`, with S3's `s3:` or without (S3 sends it without in the event itself). */
function kindOf(name: string): BucketEventKind | undefined {
  const bare = name.startsWith('s3:') ? name.slice(3) : name;
  if (bare.startsWith('ObjectCreated:')) return 'created';
  if (bare.startsWith('ObjectRemoved:')) return 'removed';
  return undefined;
}

/**
 * An S3 event's key decoded as S3 encodes it (`+` a space, `%XX` a UTF-8 byte); undefined when it is not such an
 * encoding (a `%` without two hex digits, bytes that are not UTF-8): then the key is read as written.
 */
export function decodeEventKey(key: string): string | undefined {
  try {
    return decodeURIComponent(key.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Whether event `a` happened after `b` (of the same key): by S3's sequencer when both have one ("compare the
 * sequencer strings": the longer is padded with leading zeros, docs.aws.amazon.com/AmazonS3/latest/userguide/
 * notification-content-structure.html), else by event time; a tie is not later.
 */
export function isLater(a: BucketEvent, b: BucketEvent): boolean {
  if (a.sequencer !== '' && b.sequencer !== '') {
    const length = Math.max(a.sequencer.length, b.sequencer.length);
    return a.sequencer.padStart(length, '0') > b.sequencer.padStart(length, '0');
  }
  return Number.isFinite(a.eventTime) && Number.isFinite(b.eventTime) && a.eventTime > b.eventTime;
}

/**
 * One event per bucket and key, the newest of those a push carries (a put then a delete of the same key is a removal;
 * a delete then a put, a creation), in the order the push named them. Across pushes the records' own semantics order
 * them (docs/storj.md "Order and duplicates").
 */
export function newestPerKey(events: readonly BucketEvent[]): BucketEvent[] {
  const newest = new Map<string, BucketEvent>();
  for (const event of events) {
    const id = `${event.bucket}/${event.keys[0]}`;
    const seen = newest.get(id);
    if (seen === undefined || !isLater(seen, event)) newest.set(id, event);
  }
  return [...newest.values()];
}

/** A URL an event purges: soft (`created`: revalidated) or hard (`removed`: gone). */
export interface EventPurge {
  /** `https://<a host that reads the bucket>/<the key, encoded as a path>`: the tiers canonicalise it as a request. */
  url: string;
  soft: boolean;
}

/**
 * What a push's events purge: each key as the URL a client reads it by, on a host that reads its bucket (`hostOf`:
 * HOST_BUCKETS's host for it, or the edge's own for S3_BUCKET; undefined when this deployment serves no host from that
 * bucket: the event is ignored, there is nothing of it to purge). A URL record matches its path on every host
 * (docs/purge.md), so one host is enough.
 */
export function eventPurges(
  events: readonly BucketEvent[],
  hostOf: (bucket: string) => string | undefined,
): { purges: EventPurge[]; ignored: string[] } {
  const purges: EventPurge[] = [];
  const ignored: string[] = [];
  for (const event of events) {
    const host = hostOf(event.bucket);
    if (host === undefined) {
      ignored.push(`bucket ${describe(event.bucket)} is not served here (S3_BUCKET, HOST_BUCKETS)`);
      continue;
    }
    for (const key of event.keys)
      purges.push({ url: `https://${host}/${encodeKeyForPath(key)}`, soft: event.kind === 'created' });
  }
  return { purges, ignored };
}

/** `text` parsed as a JSON object, or the reason it is not one. */
function jsonObject(text: string, expected: string): Record<string, unknown> | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `expected ${expected}, got text that is not JSON (${describe(text)})`;
  }
  return isObject(value) ? value : `expected ${expected}, got ${describeValue(value)}`;
}

/** Standard base64 (RFC 4648 §4) as Pub/Sub writes `data`, decoded as UTF-8; undefined when it is neither. */
function base64Text(value: string): string | undefined {
  if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return undefined;
  let binary: string;
  try {
    binary = atob(value);
  } catch {
    return undefined;
  }
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fail(reason: string): PushParse {
  return { ok: false, reason };
}

/** What a value is, shortly: its JSON (cut), or `an array`, `absent`. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  return describe(JSON.stringify(value) ?? String(value));
}

/** A short, printable excerpt of what arrived. */
function describe(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
