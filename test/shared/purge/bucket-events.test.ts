import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BucketEvent,
  decodeEventKey,
  EVENTS_BODY_LIMIT,
  eventPurges,
  isLater,
  MAX_PUSH_EVENTS,
  newestPerKey,
  parsePush,
} from '../../../shared/purge/bucket-events.ts';

/** An S3 event record as Storj sends it (version 2.1 of S3's structure; Storj's design doc, phase 1). */
function s3Record(eventName: string, key: string, extra: { sequencer?: string; eventTime?: string; bucket?: string }) {
  return {
    eventVersion: '2.1',
    eventSource: 'storj:s3',
    eventTime: extra.eventTime ?? '2025-08-15T12:48:21.889Z',
    eventName,
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: 'ObjectEvents',
      bucket: { name: extra.bucket ?? 'site', arn: `arn:storj:s3:::${extra.bucket ?? 'site'}` },
      object: { key, size: 3, sequencer: extra.sequencer ?? '00689F2C95DA726DCD' },
    },
  };
}

/** The push's body as Pub/Sub sends it (cloud.google.com/pubsub/docs/push): the event base64 in message.data. */
function push(data: unknown, messageId = '2070443601311540'): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return JSON.stringify({
    message: {
      attributes: {},
      data: Buffer.from(text, 'utf8').toString('base64'),
      messageId,
      message_id: messageId,
      publishTime: '2025-08-15T12:48:22.100Z',
      publish_time: '2025-08-15T12:48:22.100Z',
    },
    subscription: 'projects/my-project/subscriptions/tiercache-events',
  });
}

const reasonOf = (text: string): string => {
  const parsed = parsePush(text);
  if (parsed.ok) throw new Error(`expected ${text.slice(0, 80)} to be refused`);
  return parsed.reason;
};

const event = (over: Partial<BucketEvent>): BucketEvent => ({
  kind: 'created',
  name: 'ObjectCreated:Put',
  bucket: 'site',
  keys: ['a.txt'],
  eventTime: Number.NaN,
  sequencer: '',
  ...over,
});

describe('parsePush', () => {
  it('reads a created and a removed event, with or without the s3: prefix, and the message id', () => {
    const parsed = parsePush(
      push({
        Records: [
          s3Record('ObjectCreated:Put', 'img/a.png', { bucket: 'site', sequencer: '01' }),
          s3Record('s3:ObjectRemoved:Delete', 'b.txt', { bucket: 'other', sequencer: '02' }),
        ],
      }),
    );
    expect(parsed).toEqual({
      ok: true,
      push: {
        messageId: '2070443601311540',
        subscription: 'projects/my-project/subscriptions/tiercache-events',
        events: [
          {
            kind: 'created',
            name: 'ObjectCreated:Put',
            bucket: 'site',
            keys: ['img/a.png'],
            eventTime: Date.parse('2025-08-15T12:48:21.889Z'),
            sequencer: '01',
          },
          {
            kind: 'removed',
            name: 's3:ObjectRemoved:Delete',
            bucket: 'other',
            keys: ['b.txt'],
            eventTime: Date.parse('2025-08-15T12:48:21.889Z'),
            sequencer: '02',
          },
        ],
        ignored: [],
      },
    });
  });

  it('reads every ObjectCreated and ObjectRemoved name Storj sends, and ignores other kinds with a reason', () => {
    for (const [name, kind] of [
      ['ObjectCreated:Put', 'created'],
      ['ObjectCreated:Copy', 'created'],
      ['ObjectCreated:CompleteMultipartUpload', 'created'],
      ['ObjectRemoved:Delete', 'removed'],
      ['ObjectRemoved:DeleteMarkerCreated', 'removed'],
    ] as const) {
      const parsed = parsePush(push({ Records: [s3Record(name, 'k', {})] }));
      expect(parsed.ok && parsed.push.events[0]?.kind, name).toBe(kind);
    }
    const restore = parsePush(push({ Records: [s3Record('ObjectRestore:Post', 'k', {})] }));
    expect(restore.ok && restore.push.events).toEqual([]);
    expect(restore.ok && restore.push.ignored[0]).toMatch(
      /ObjectRestore:Post.*neither ObjectCreated nor ObjectRemoved/,
    );
  });

  it("acknowledges S3's test event with nothing to purge", () => {
    const parsed = parsePush(push({ Service: 'Storj', Event: 's3:TestEvent', Time: '2025-08-19T12:06:41.134Z' }));
    expect(parsed).toMatchObject({ ok: true, push: { events: [], ignored: ['s3:TestEvent'] } });
  });

  it('decodes the key as S3 encodes it, and keeps the key as written too when the two differ', () => {
    const read = (key: string): string[] | false => {
      const parsed = parsePush(push({ Records: [s3Record('ObjectCreated:Put', key, {})] }));
      return parsed.ok && (parsed.push.events[0]?.keys ?? []);
    };
    expect(read('two+words%2Fcaf%C3%A9.txt')).toEqual(['two words/café.txt', 'two+words%2Fcaf%C3%A9.txt']);
    expect(read('plain/key.txt')).toEqual(['plain/key.txt']);
    // Not an encoding (a stray %, bytes that are not UTF-8): read as written.
    expect(read('100%.txt')).toEqual(['100%.txt']);
    expect(read('%C3.txt')).toEqual(['%C3.txt']);
    expect(decodeEventKey('a+b')).toBe('a b');
  });

  it('keeps only the newest event of a key a push carries: by sequencer, else by event time', () => {
    const parsed = parsePush(
      push({
        Records: [
          s3Record('ObjectRemoved:Delete', 'k', { sequencer: '0068A46CA93FF7352F' }),
          s3Record('ObjectCreated:Put', 'k', { sequencer: '0068A469BDE7041115' }),
        ],
      }),
    );
    expect(parsed.ok && parsed.push.events.map((e) => e.kind)).toEqual(['removed']);
  });

  it('refuses what is not a push, saying what was expected and what arrived', () => {
    expect(reasonOf('not json')).toMatch(/expected a Pub\/Sub push.*not JSON/);
    expect(reasonOf('[]')).toMatch(/got an array/);
    expect(reasonOf('{}')).toMatch(/"message" to be an object, got nothing/);
    expect(reasonOf('{"message": {"data": "e30="}}')).toMatch(/messageId/);
    expect(reasonOf('{"message": {"messageId": "1"}}')).toMatch(/"message.data"/);
    expect(reasonOf('{"message": {"messageId": "1", "data": "%%%"}}')).toMatch(/base64/);
    // Base64 of bytes that are not UTF-8.
    expect(reasonOf('{"message": {"messageId": "1", "data": "/w=="}}')).toMatch(/base64 of UTF-8/);
    expect(reasonOf(push('not json'))).toMatch(/S3 event message.*not JSON/);
    expect(reasonOf(push({ Records: [] }))).toMatch(/non-empty array/);
    expect(reasonOf(push({ Records: [1] }))).toMatch(/Records\[0\] to be an object/);
    expect(reasonOf(push({ Records: [{ eventName: 7 }] }))).toMatch(/eventName/);
    const noBucket = s3Record('ObjectCreated:Put', 'k', {}) as { s3: { bucket?: unknown } };
    delete noBucket.s3.bucket;
    expect(reasonOf(push({ Records: [noBucket] }))).toMatch(/s3.bucket.name/);
    expect(reasonOf(push({ Records: [s3Record('ObjectCreated:Put', '', {})] }))).toMatch(/s3.object.key/);
    expect(reasonOf(push({ Records: [s3Record('ObjectCreated:Put', 'k', { sequencer: 'zz' })] }))).toMatch(/sequencer/);
    const many = Array.from({ length: MAX_PUSH_EVENTS + 1 }, (_, i) => s3Record('ObjectCreated:Put', `k${i}`, {}));
    expect(reasonOf(push({ Records: many }))).toMatch(/at most 100 records/);
  });

  it('never throws, and reads only what is a push, whatever arrives (random text, JSON of any shape)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.string({ unit: 'binary' })), (text) => {
        const parsed = parsePush(text);
        if (!parsed.ok) expect(parsed.reason).toMatch(/^expected /);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on random event data inside a well-formed envelope, nor on random bytes as data', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue().map((value) => push(value)),
          fc
            .uint8Array({ maxLength: 200 })
            .map((bytes) =>
              JSON.stringify({ message: { messageId: '1', data: Buffer.from(bytes).toString('base64') } }),
            ),
          fc
            .record({
              eventName: fc.oneof(fc.string(), fc.constantFrom('ObjectCreated:Put', 'ObjectRemoved:Delete')),
              eventTime: fc.oneof(fc.string(), fc.integer()),
              s3: fc.anything(),
            })
            .map((record) => push({ Records: [record] })),
        ),
        (text) => {
          const parsed = parsePush(text);
          if (parsed.ok) for (const e of parsed.push.events) expect(e.keys.length).toBeGreaterThan(0);
          else expect(parsed.reason).toMatch(/^expected /);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('states a body limit the endpoint enforces (413 past it)', () => {
    expect(EVENTS_BODY_LIMIT).toBe(1024 * 1024);
    // A huge body that is still JSON is read, and refused for its shape, not thrown on.
    expect(reasonOf(JSON.stringify({ message: { messageId: '1', data: 'A'.repeat(4096 * 3) } }))).toMatch(
      /base64 of UTF-8|Records/,
    );
  });
});

describe('isLater and newestPerKey', () => {
  it('compares sequencers as S3 says: padded with leading zeros to the same length', () => {
    expect(isLater(event({ sequencer: '0A' }), event({ sequencer: '9' }))).toBe(true);
    expect(isLater(event({ sequencer: '9' }), event({ sequencer: '0A' }))).toBe(false);
    expect(isLater(event({ sequencer: '00689F2E8EA8DF4617' }), event({ sequencer: '689F2C95DA726DCD' }))).toBe(true);
  });

  it('falls back to the event time, and calls a tie not later', () => {
    expect(isLater(event({ eventTime: 2 }), event({ eventTime: 1 }))).toBe(true);
    expect(isLater(event({ eventTime: 1 }), event({ eventTime: 1 }))).toBe(false);
    expect(isLater(event({ eventTime: Number.NaN }), event({ eventTime: 1 }))).toBe(false);
  });

  it('keeps the newest event per bucket and key, whatever order they came in', () => {
    fc.assert(
      fc.property(fc.shuffledSubarray([1, 2, 3, 4, 5], { minLength: 5, maxLength: 5 }), (order) => {
        const events = order.map((n) =>
          event({ kind: n % 2 === 0 ? 'removed' : 'created', sequencer: n.toString(16), keys: ['k'] }),
        );
        expect(newestPerKey(events)).toEqual([expect.objectContaining({ sequencer: '5', kind: 'created' })]);
      }),
    );
  });
});

describe('eventPurges', () => {
  it('names each key as a URL on a host that reads its bucket: soft when created, hard when removed', () => {
    const hosts = new Map([['site', 'cdn.example']]);
    expect(
      eventPurges(
        [
          event({ kind: 'created', keys: ['two words/é.txt', 'two+words/%C3%A9.txt'] }),
          event({ kind: 'removed', keys: ['gone.txt'] }),
          event({ bucket: 'elsewhere', keys: ['x'] }),
        ],
        (bucket) => hosts.get(bucket),
      ),
    ).toEqual({
      purges: [
        { url: 'https://cdn.example/two%20words/%C3%A9.txt', soft: true },
        { url: 'https://cdn.example/two%2Bwords/%25C3%25A9.txt', soft: true },
        { url: 'https://cdn.example/gone.txt', soft: false },
      ],
      ignored: ['bucket "elsewhere" is not served here (S3_BUCKET, HOST_BUCKETS)'],
    });
  });
});
