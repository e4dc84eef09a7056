// resolveObject over fake ports for an object varying on Accept-Encoding (shared/http/vary-codings.ts): a variant per
// coding stored, not per spelling; a request served a stored coding it accepts, or none; the index's record of them.

import { describe, expect, it } from 'vitest';
import { variantKey } from '../../../shared/http/vary.ts';
import { VARY_CODINGS_HEADER } from '../../../shared/http/vary-codings.ts';
import { resolveObject } from '../../../shared/tier/object-read.ts';
import { asWhole, drained, type FakeRead, fakeRead, sameTier, textObject } from './fakes.ts';

const FIELDS = ['accept-encoding'];
const inCoding = (coding: string) =>
  textObject(`in ${coding}`, {
    vary: 'Accept-Encoding',
    ...(coding === 'identity' ? {} : { 'content-encoding': coding }),
    etag: `"v1-${coding}"`,
  });
const accepting = (value?: string): Headers => new Headers(value === undefined ? {} : { 'accept-encoding': value });

/** A GET at `read`'s tier by a client sending `accept` (none: undefined), drained; its body and report. */
async function get(read: FakeRead, objectKey: string, accept?: string) {
  const request = sameTier(read, { key: objectKey, selecting: accepting(accept) });
  const resolved = asWhole(await resolveObject(request, 0));
  return { body: await drained(request, resolved), report: resolved.report, key: request.key };
}

function firstRead(coding: string, accept?: string): { read: FakeRead; objectKey: string } {
  const read = fakeRead({ object: inCoding(coding), selecting: accepting(accept) });
  return { read, objectKey: read.key };
}

describe('resolveObject: Vary: Accept-Encoding, keyed by the answer’s coding (RFC 9110 §12.5.3, RFC 9111 §4.1)', () => {
  it('stores an answer under its coding, the index recording it; every spelling that accepts it hits', async () => {
    const { read, objectKey } = firstRead('gzip', 'gzip');
    expect(await drained(read, await resolveObject(read, 0))).toBe('in gzip');
    const gzipKey = variantKey(objectKey, FIELDS, new Headers(), 'gzip');
    expect(read.key).toBe(gzipKey);
    expect(read.cache.keys().sort()).toEqual([objectKey, gzipKey].sort());
    expect(read.cache.unpacked(objectKey)?.headers.get(VARY_CODINGS_HEADER)).toBe('gzip');
    for (const accept of ['gzip, deflate, br', 'br, gzip', 'x-gzip', 'GZIP;q=0.1, identity;q=1']) {
      const hit = await get(read, objectKey, accept);
      expect([hit.body, hit.report.hit, hit.key]).toEqual(['in gzip', true, gzipKey]);
    }
    expect(read.upstream.calls).toHaveLength(1);
  });

  it('a request accepting none of the stored codings misses, and its answer is recorded beside the others', async () => {
    const { read, objectKey } = firstRead('gzip', 'gzip');
    await drained(read, await resolveObject(read, 0));
    read.upstream.object = inCoding('br');
    const miss = await get(read, objectKey, 'br');
    expect([miss.body, miss.report.fwd]).toEqual(['in br', 'vary-miss']);
    expect(read.cache.unpacked(objectKey)?.headers.get(VARY_CODINGS_HEADER)).toBe('br, gzip');
    // The client's highest weight first, ties broken br > zstd > gzip > identity.
    expect((await get(read, objectKey, 'gzip, br')).body).toBe('in br');
    expect((await get(read, objectKey, 'gzip;q=1, br;q=0.9')).body).toBe('in gzip');
    expect((await get(read, objectKey, 'br;q=0, *')).body).toBe('in gzip');
    expect(read.upstream.calls).toHaveLength(2);
  });

  it('never serves a stored coding the request refuses (q=0), nor one it does not name', async () => {
    // An origin that answers gzip whatever it is asked: only gzip is ever stored, and none of these accept it.
    const { read, objectKey } = firstRead('gzip', 'gzip');
    await drained(read, await resolveObject(read, 0));
    for (const [n, accept] of ['gzip;q=0', 'br', '*;q=0', 'identity', undefined, '', 'br, *;q=0'].entries()) {
      const answer = await get(read, objectKey, accept);
      expect(answer.report.hit).toBeUndefined();
      expect(read.upstream.calls).toHaveLength(n + 2);
    }
  });

  it('identity stored for a client that offered no compression is served only to such clients (the identity trap)', async () => {
    const { read, objectKey } = firstRead('identity');
    await drained(read, await resolveObject(read, 0));
    expect(read.cache.unpacked(objectKey)?.headers.get(VARY_CODINGS_HEADER)).toBe('identity=');
    expect((await get(read, objectKey, 'identity')).report.hit).toBe(true);
    expect((await get(read, objectKey, 'gzip;q=0, br;q=0')).report.hit).toBe(true);
    // A gzip client: the origin might have compressed for it; asked, it says identity again, now known to decline gzip.
    const gzipClient = await get(read, objectKey, 'gzip');
    expect([gzipClient.body, gzipClient.report.fwd]).toEqual(['in identity', 'vary-miss']);
    expect(read.cache.unpacked(objectKey)?.headers.get(VARY_CODINGS_HEADER)).toBe('identity=gzip');
    expect((await get(read, objectKey, 'gzip, deflate')).report.hit).toBe(true);
    expect((await get(read, objectKey, 'br, gzip')).report.hit).toBeUndefined();
    expect(read.cache.unpacked(objectKey)?.headers.get(VARY_CODINGS_HEADER)).toBe('identity=br+gzip');
    expect((await get(read, objectKey, 'br')).report.hit).toBe(true);
    expect(read.upstream.calls).toHaveLength(3);
  });

  it('an answer in a coding not keyed by (deflate), or to a value that does not read, is keyed by the exact value', async () => {
    const { read, objectKey } = firstRead('deflate', 'gzip, deflate');
    await drained(read, await resolveObject(read, 0));
    expect(read.key).toBe(variantKey(objectKey, FIELDS, accepting('gzip, deflate')));
    expect(read.cache.unpacked(objectKey)?.headers.get(VARY_CODINGS_HEADER)).toBeNull();
    expect((await get(read, objectKey, 'gzip,deflate')).report.hit).toBe(true);
    expect((await get(read, objectKey, 'deflate, gzip')).report.hit).toBeUndefined();
    read.upstream.object = inCoding('gzip');
    const garbled = await get(read, objectKey, 'gzip;level=9');
    expect(garbled.key).toBe(variantKey(objectKey, FIELDS, accepting('gzip;level=9')));
    expect((await get(read, objectKey, 'gzip;level=9')).report.hit).toBe(true);
    expect((await get(read, objectKey, 'gzip')).report.hit).toBeUndefined();
    expect(read.upstream.calls).toHaveLength(4);
  });

  it('a variant the index names but the cache lost is passed over for the next the request accepts', async () => {
    const { read, objectKey } = firstRead('br', 'br');
    await drained(read, await resolveObject(read, 0));
    read.upstream.object = inCoding('gzip');
    await get(read, objectKey, 'gzip');
    read.cache.entries.delete(variantKey(objectKey, FIELDS, new Headers(), 'br') ?? '');
    const hit = await get(read, objectKey, 'br, gzip');
    expect([hit.body, hit.report.hit]).toEqual(['in gzip', true]);
    expect(read.upstream.calls).toHaveLength(2);
  });

  it('a request too long to key by exactly still finds, and fills, the variant of its coding', async () => {
    const long = `gzip, ${Array.from({ length: 400 }, (_, i) => `x-${i}`).join(', ')}`;
    const { read, objectKey } = firstRead('gzip', long);
    const resolved = await resolveObject(read, 0);
    expect(resolved.report.stored).toBe(true);
    await drained(read, resolved);
    expect((await get(read, objectKey, long)).report.hit).toBe(true);
    expect((await get(read, objectKey, 'gzip')).report.hit).toBe(true);
  });
});
