// Purge on upload (docs/storj.md "Purge on upload") through the real workers: a test double of Pub/Sub's push
// (cloud.google.com/pubsub/docs/push: the envelope, the event base64 in message.data) carrying Storj's event (S3's
// structure 2.1). A created event makes the next GET revalidate (the origin sees a conditional request), a removed one
// makes it a miss at both tiers; a forged push is refused and changes nothing, a replayed one records nothing more.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PURGE_KEY_PREFIX } from '../../shared/purge/purge-batch.ts';
import { type Answer, cacheStatus, type Fixture, request, settle, startFixture } from './fixture.ts';

const EVENTS_TOKEN = 'test-events-token';
let f: Fixture;
let nextId = 1000;

beforeAll(async () => {
  f = await startFixture({ EVENTS_TOKEN, STALE_WHILE_REVALIDATE: '0', STALE_IF_ERROR: '0' });
});
afterAll(() => f?.close());

/** Storj's event for one object (S3's event message structure 2.1, as Storj's design doc sends it). */
function storjEvent(eventName: string, key: string, bucket: string = f.origin.bucket): unknown {
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'storj:s3',
        eventTime: new Date().toISOString(),
        eventName,
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'ObjectEvents',
          bucket: { name: bucket, arn: `arn:storj:s3:::${bucket}` },
          object: { key, sequencer: (Date.now() * 1e6).toString(16).toUpperCase().padStart(16, '0') },
        },
      },
    ],
  };
}

/** Pub/Sub's push of `event`, as its POST body. */
function envelope(event: unknown, messageId = String(++nextId)): string {
  const data = Buffer.from(JSON.stringify(event)).toString('base64');
  return JSON.stringify({
    message: { attributes: {}, data, messageId, message_id: messageId, publishTime: new Date().toISOString() },
    subscription: 'projects/p/subscriptions/tiercache-events',
  });
}

/** The push as Pub/Sub sends it: POST, JSON, the secret in the endpoint URL's query. */
async function pushed(body: string, token: string | null = EVENTS_TOKEN, headers: Record<string, string> = {}) {
  const url = new URL('/__tiercache/events', f.stack.url);
  if (token !== null) url.searchParams.set('token', token);
  f.tap.clear();
  const answer = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await settle(50);
  // A push never reaches the origin.
  expect(f.tap.requests).toEqual([]);
  return answer;
}

/** The purge batches written to KV so far. */
async function batches(): Promise<string[]> {
  const kv = await f.stack.mf.getKVNamespace('PURGES', 'edge');
  return (await kv.list({ prefix: PURGE_KEY_PREFIX })).keys.map((key) => key.name);
}

const edge = (answer: Answer): string[] => cacheStatus(answer).find((m) => m[0] === 'tiercache-edge') ?? [];

async function warm(path: string): Promise<void> {
  await f.get(path);
  await settle();
  expect(edge(await f.get(path))[1], path).toBe('hit');
}

const originGets = (path: string) =>
  f.tap.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0]?.endsWith(path));

describe('bucket events (Pub/Sub push)', () => {
  it('a created event makes the next GET revalidate: the origin sees a conditional request', async () => {
    await f.origin.putObject('up/page.txt', 'v1', { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' });
    await warm('/up/page.txt');
    await f.origin.putObject('up/page.txt', 'v2, uploaded', {
      'content-type': 'text/plain',
      'cache-control': 'max-age=3600',
    });
    const answer = await pushed(envelope(storjEvent('ObjectCreated:Put', 'up/page.txt')));
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({
      duplicate: false,
      recorded: 1,
      purged: [{ url: '/up/page.txt', soft: true }],
    });
    f.tap.clear();
    const again = await f.get('/up/page.txt');
    expect(again.text).toBe('v2, uploaded');
    const sent = originGets('/up/page.txt');
    expect(sent).toHaveLength(1);
    expect(
      sent[0]?.headers['if-none-match'] ?? sent[0]?.headers['if-modified-since'],
      JSON.stringify(sent),
    ).toBeDefined();
    expect(edge(again)).toEqual(expect.arrayContaining(['fwd=stale']));
    await settle();
    expect(edge(await f.get('/up/page.txt'))[1]).toBe('hit');
  });

  it('a created event of an unchanged object is answered 304 by the origin, and the bytes kept', async () => {
    await f.origin.putObject('up/same.txt', 'same', { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' });
    await warm('/up/same.txt');
    expect((await pushed(envelope(storjEvent('s3:ObjectCreated:Copy', 'up/same.txt')))).status).toBe(200);
    f.tap.clear();
    expect((await f.get('/up/same.txt')).text).toBe('same');
    expect(originGets('/up/same.txt').map((r) => r.status)).toEqual([304]);
  });

  it('a removed event makes the next GET a miss at both tiers', async () => {
    await f.origin.putObject('up/gone.txt', 'gone soon', {
      'content-type': 'text/plain',
      'cache-control': 'max-age=3600',
    });
    await warm('/up/gone.txt');
    const answer = await pushed(envelope(storjEvent('ObjectRemoved:Delete', 'up/gone.txt')));
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ recorded: 1, purged: [{ url: '/up/gone.txt', soft: false }] });
    f.tap.clear();
    const again = await f.get('/up/gone.txt');
    expect(again.headers.get('cache-status')).toBe(
      'tiercache-shield; fwd=uri-miss; stored, tiercache-edge; fwd=uri-miss; stored',
    );
    expect(originGets('/up/gone.txt')).toHaveLength(1);
    // Unconditional: the entry is gone, not stale.
    expect(originGets('/up/gone.txt')[0]?.headers['if-none-match']).toBeUndefined();
  });

  it('decodes the key as S3 encodes it: a space as +, UTF-8 as %XX', async () => {
    const key = 'up/two words é.txt';
    await f.origin.putObject(key, 'spaced', { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' });
    const path = '/up/two%20words%20%C3%A9.txt';
    await warm(path);
    const encoded = 'up/two+words+%C3%A9.txt';
    expect((await pushed(envelope(storjEvent('ObjectRemoved:Delete', encoded)))).status).toBe(200);
    f.tap.clear();
    expect(edge(await f.get(path))[1]).not.toBe('hit');
    expect(originGets('/up/two%20words%20%C3%A9.txt')).toHaveLength(1);
  });

  it('refuses a forged push (no token, a wrong one) with 401 and changes nothing: the next GET is still a hit', async () => {
    await f.origin.putObject('up/kept.txt', 'kept', { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' });
    await warm('/up/kept.txt');
    const before = await batches();
    for (const token of [null, 'wrong', `${EVENTS_TOKEN}x`, '']) {
      const answer = await pushed(envelope(storjEvent('ObjectRemoved:Delete', 'up/kept.txt')), token);
      expect(answer.status, String(token)).toBe(401);
      expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer realm="tiercache events"/);
    }
    // The token as a bearer is refused when wrong too.
    const bearer = await pushed(envelope(storjEvent('ObjectRemoved:Delete', 'up/kept.txt')), null, {
      authorization: 'Bearer wrong',
    });
    expect(bearer.status).toBe(401);
    expect(await batches()).toEqual(before);
    f.tap.clear();
    expect(edge(await f.get('/up/kept.txt'))[1]).toBe('hit');
    expect(f.tap.requests).toEqual([]);
  });

  it('takes the secret as a bearer token too', async () => {
    const answer = await pushed(envelope({ Event: 's3:TestEvent', Service: 'Storj' }), null, {
      authorization: `Bearer ${EVENTS_TOKEN}`,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ recorded: 0, ignored: ['s3:TestEvent'] });
  });

  it('a replayed push (the same message id) records nothing more and changes nothing, answered 200 for Pub/Sub', async () => {
    await f.origin.putObject('up/once.txt', 'once', { 'content-type': 'text/plain', 'cache-control': 'max-age=3600' });
    const body = envelope(storjEvent('ObjectRemoved:Delete', 'up/once.txt'), 'replayed-1');
    const before = await batches();
    expect((await pushed(body)).status).toBe(200);
    const once = await batches();
    expect(once.length).toBe(before.length + 1);
    await warm('/up/once.txt');
    const replay = await pushed(body);
    expect(replay.status).toBe(200);
    expect(JSON.parse(replay.text)).toMatchObject({ messageId: 'replayed-1', duplicate: true, recorded: 0 });
    // No second record written, and the entry fetched after the first push is still served.
    expect(await batches()).toEqual(once);
    f.tap.clear();
    expect(edge(await f.get('/up/once.txt'))[1]).toBe('hit');
    expect(f.tap.requests).toEqual([]);
  });

  it('ignores an event of a bucket this deployment does not serve, acknowledging it', async () => {
    const before = await batches();
    const answer = await pushed(envelope(storjEvent('ObjectRemoved:Delete', 'x.txt', 'someone-elses')));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ recorded: 0, ignored: [expect.stringMatching(/not served here/)] });
    expect(await batches()).toEqual(before);
  });

  it('answers 415, 413 and 400 for bodies that are not a push, recording nothing', async () => {
    const before = await batches();
    expect((await pushed('{}', EVENTS_TOKEN, { 'content-type': 'text/plain' })).status).toBe(415);
    expect((await pushed(`{"message": "${'x'.repeat(1024 * 1024)}"}`)).status).toBe(413);
    const bad = await pushed('{"message": {"messageId": "1", "data": "%%%"}}');
    expect(bad.status).toBe(400);
    expect(bad.text).toMatch(/base64/);
    expect((await pushed(envelope({ Records: 'no' }))).status).toBe(400);
    expect(await batches()).toEqual(before);
  });

  it('takes POST only', async () => {
    const answer = await request(new URL(`/__tiercache/events?token=${EVENTS_TOKEN}`, f.stack.url));
    expect(answer.status).toBe(405);
  });
});

describe('bucket events without EVENTS_TOKEN', () => {
  it('are refused with 403: the endpoint is off', async () => {
    const off = await startFixture({});
    try {
      const answer = await request(new URL('/__tiercache/events?token=anything', off.stack.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(403);
      expect(answer.text).toMatch(/EVENTS_TOKEN/);
    } finally {
      await off.close();
    }
  });
});
