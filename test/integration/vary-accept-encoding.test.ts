// Vary: Accept-Encoding without fan-out (shared/http/vary-codings.ts), through both tiers: spellings of one
// preference share the stored coding (the origin asked once), a refusal (q=0) is never answered from the cache with
// the coding it refuses, and a negotiating origin still gives each client a coding it accepts, whole and sliced.

import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startWorkers } from '../../local/workers.ts';
import { CREDENTIAL_HEADER } from '../../shared/hop/hop-fields.ts';
import { type AnyOrigin, type Received, startAnyOrigin } from './any-origin.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { FakeClock, type RawAnswer, rawRequest, settle } from './fixture.ts';
import { answerRanged } from './ranged-object.ts';

const SHIELD_TOKEN = 't';
const MiB = 1024 * 1024;
type Coding = 'br' | 'gzip' | 'identity';

let origin: AnyOrigin;
let stack: Stack;
const clock = new FakeClock();
let n = 0;

beforeAll(async () => {
  origin = await startAnyOrigin();
  stack = await startWorkers({
    config: { ORIGIN_KIND: 'http', ORIGIN_URL: origin.url, SHIELD_TOKEN, SLICE_SIZE: '1MiB', SLICE_THRESHOLD: '2MiB' },
    clock: clock.now,
  });
});
afterAll(async () => {
  await stack?.dispose();
  await origin?.close();
});

/**
 * Whether a client stating `accept` accepts `coding`, as a plain server reads it (RFC 9110 §12.5.3): listed with
 * q>0, or `*` with q>0 when not listed; identity unless refused. Written apart from the module under test.
 */
function accepts(accept: string | undefined, coding: Coding): boolean {
  if (accept === undefined) return coding === 'identity';
  const q = new Map<string, number>();
  for (const member of accept.split(',')) {
    const [name = '', ...params] = member.split(';').map((part) => part.trim().toLowerCase());
    const weight = params.find((param) => param.startsWith('q='));
    if (name !== '') q.set(name, weight === undefined ? 1 : Number(weight.slice(2)));
  }
  const own = q.get(coding) ?? q.get('*');
  return own === undefined ? coding === 'identity' : own > 0;
}

/** An origin at a new path whose answer's coding is `choose(request's Accept-Encoding)`; ranges too. */
function serve(
  choose: (accept: string | undefined) => Coding,
  size = 4096,
): { path: string; bodies: Record<Coding, Uint8Array> } {
  const path = `/negotiated-${++n}.txt`;
  const original = patternBytes(n, size);
  const bodies: Record<Coding, Uint8Array> = {
    identity: original,
    gzip: new Uint8Array(gzipSync(original, { level: 1 })),
    br: new Uint8Array(brotliCompressSync(original, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } })),
  };
  origin.answer(path, (request: Received) => {
    const coding = choose(request.headers['accept-encoding']);
    const headers: Record<string, string> = {
      'cache-control': 'max-age=600',
      vary: 'Accept-Encoding',
      'content-type': 'text/plain',
      'accept-ranges': 'bytes',
    };
    if (coding !== 'identity') headers['content-encoding'] = coding;
    return answerRanged({ bytes: bodies[coding], etag: `"${n}-${coding}"`, headers, now: clock.now }, request);
  });
  return { path, bodies };
}

/** br to a client that accepts it, else gzip, else identity (nginx with brotli and gzip on). */
const negotiating = (accept: string | undefined): Coding =>
  accepts(accept, 'br') ? 'br' : accepts(accept, 'gzip') ? 'gzip' : 'identity';
/** gzip to a client that accepts it (nginx's gzip on), else identity. */
const gzipping = (accept: string | undefined): Coding => (accepts(accept, 'gzip') ? 'gzip' : 'identity');

const viaEdge = (path: string, accept?: string, more: Record<string, string> = {}): Promise<RawAnswer> =>
  rawRequest(new URL(path, stack.url), { ...(accept === undefined ? {} : { 'accept-encoding': accept }), ...more });
const atShield = (path: string, accept?: string): Promise<RawAnswer> =>
  rawRequest(new URL(path, stack.shieldUrl), {
    [CREDENTIAL_HEADER]: SHIELD_TOKEN,
    ...(accept === undefined ? {} : { 'accept-encoding': accept }),
  });
const codingOf = (answer: RawAnswer): string => answer.headers.get('content-encoding') ?? 'identity';
const asked = (path: string): (string | undefined)[] =>
  origin.receivedFor(path).map((request) => request.headers['accept-encoding']);

/** `answer` is complete, in `coding`, with exactly that coding's bytes. */
function expectBody(answer: RawAnswer, coding: Coding, bodies: Record<Coding, Uint8Array>): void {
  expect(answer.error).toBeUndefined();
  expect(answer.status).toBe(200);
  expect(codingOf(answer)).toBe(coding);
  expect(sha256(answer.body)).toBe(sha256(bodies[coding]));
}

describe('Vary: Accept-Encoding, one stored answer per coding (RFC 9110 §12.5.3, RFC 9111 §4.1)', () => {
  it('gzip, "gzip, deflate, br" and "br, gzip" share the gzip answer: the origin is asked once', async () => {
    const { path, bodies } = serve(gzipping);
    for (const accept of ['gzip', 'gzip, deflate, br', 'br, gzip', 'GZIP;q=0.5, identity', 'x-gzip'])
      expectBody(await viaEdge(path, accept), 'gzip', bodies);
    await settle();
    expect(asked(path)).toEqual(['gzip']);
    // The same at the shield on its own: the spellings it is sent share its stored gzip answer.
    for (const accept of ['deflate, gzip', 'br;q=1, gzip;q=0.9'])
      expectBody(await atShield(path, accept), 'gzip', bodies);
    expect(asked(path)).toEqual(['gzip']);
  });

  it('a refusal (q=0) is never answered with the coding it refuses', async () => {
    const { path, bodies } = serve(gzipping);
    expectBody(await viaEdge(path, 'gzip, br'), 'gzip', bodies);
    await settle();
    for (const accept of ['gzip;q=0', 'br, gzip;q=0', '*;q=0, identity', 'identity'])
      expectBody(await viaEdge(path, accept), 'identity', bodies);
    // One more origin request for the identity answer, and one for the client offering br, which the origin was not
    // yet seen to decline; the refusals after them share that identity answer.
    await settle();
    expect(asked(path)).toEqual(['gzip, br', 'gzip;q=0', 'br, gzip;q=0']);
    // A client that refuses identity as well gets no stored answer it refused: it goes to the origin.
    await viaEdge(path, 'identity;q=0, gzip;q=0');
    await settle();
    expect(asked(path)).toHaveLength(4);
  });

  it('a negotiating origin: each client gets a coding it accepts, preferring its highest q, each asked once', async () => {
    const { path, bodies } = serve(negotiating);
    expectBody(await viaEdge(path, 'br, gzip'), 'br', bodies);
    await settle();
    // gzip only: the stored br is not acceptable, so the origin is asked, and its gzip answer stored beside it.
    expectBody(await viaEdge(path, 'gzip'), 'gzip', bodies);
    await settle();
    expectBody(await viaEdge(path, 'gzip, deflate, br'), 'br', bodies);
    expectBody(await viaEdge(path, 'gzip;q=1, br;q=0.5'), 'gzip', bodies);
    expectBody(await viaEdge(path, 'br;q=0, gzip'), 'gzip', bodies);
    expectBody(await viaEdge(path, 'deflate, br;q=0.1'), 'br', bodies);
    expect(asked(path)).toEqual(['br, gzip', 'gzip']);
    // A value that does not read (a member twice, a parameter other than q) is keyed by exactly itself, as before.
    for (const accept of ['gzip, x-gzip;q=0, br;q=0.1', 'gzip;level=9']) {
      expectBody(await viaEdge(path, accept), accept.startsWith('gzip,') ? 'br' : 'gzip', bodies);
      await settle();
      expectBody(await viaEdge(path, accept), accept.startsWith('gzip,') ? 'br' : 'gzip', bodies);
    }
    expect(asked(path)).toEqual(['br, gzip', 'gzip', 'gzip, x-gzip;q=0, br;q=0.1', 'gzip;level=9']);
    // Without Accept-Encoding, only identity is acceptable: asked once more, then stored for such clients too.
    expectBody(await viaEdge(path), 'identity', bodies);
    await settle();
    expectBody(await viaEdge(path, 'identity'), 'identity', bodies);
    expect(asked(path).slice(4)).toEqual([undefined]);
  });

  it('identity stored for a client that accepts no compression is not served to one that does (the origin might compress)', async () => {
    const { path, bodies } = serve(negotiating);
    expectBody(await viaEdge(path), 'identity', bodies);
    await settle();
    expectBody(await viaEdge(path, 'gzip, br'), 'br', bodies);
    await settle();
    expect(asked(path)).toEqual([undefined, 'gzip, br']);
  });

  it('identity the origin chose although compression was offered is served to clients offering no more than that', async () => {
    const { path, bodies } = serve(() => 'identity');
    expectBody(await viaEdge(path, 'gzip, deflate'), 'identity', bodies);
    await settle();
    for (const accept of ['gzip', undefined, 'deflate, gzip;q=0.5'])
      expectBody(await viaEdge(path, accept), 'identity', bodies);
    expect(asked(path)).toEqual(['gzip, deflate']);
    // br was not offered yet: asked once, and from then on it is known the origin answers br clients with identity.
    expectBody(await viaEdge(path, 'br, gzip'), 'identity', bodies);
    await settle();
    expectBody(await viaEdge(path, 'br'), 'identity', bodies);
    expect(asked(path)).toEqual(['gzip, deflate', 'br, gzip']);
  });

  it('a sliced object: the slices a client is sent are of the coding it was chosen, however the tiers hold them', async () => {
    const { path, bodies } = serve(negotiating, 3 * MiB + 5);
    // The shield holds br (asked directly); the edge and the shield then hold the first slice of gzip.
    expectBody(await atShield(path, 'br'), 'br', bodies);
    const first = await viaEdge(path, 'gzip', { range: 'bytes=0-99' });
    expect([first.status, codingOf(first)]).toEqual([206, 'gzip']);
    await settle();
    // The edge has only gzip: a br-and-gzip client is sent gzip, every slice of it, though the shield prefers br.
    expectBody(await viaEdge(path, 'br, gzip'), 'gzip', bodies);
    // At the shield alone: gzip chosen for "gzip, br;q=0.5", and the slices it lacks asked for in gzip.
    const other = serve(negotiating, 3 * MiB + 5);
    const firstSlice = await viaEdge(other.path, 'gzip', { range: 'bytes=0-99' });
    expect(codingOf(firstSlice)).toBe('gzip');
    await settle();
    expectBody(await atShield(other.path, 'br, gzip'), 'gzip', other.bodies);
    for (const request of origin.receivedFor(other.path).filter((r) => r.headers['if-match'] !== undefined))
      expect(request.headers['accept-encoding']).toBe('gzip');
  });
});
