import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtectedPaths } from '../../../shared/admission/protected-paths.ts';
import { readToken } from '../../../shared/admission/signed-token.ts';
import { type SignOptions, signToken } from '../../../shared/admission/signer.ts';
import { type RefusalReason, type RequestFacts, SignatureVerifier } from '../../../shared/admission/verifier.ts';

const SECRET = 'a-signing-secret-of-at-least-32-chars!';
const OTHER_SECRET = 'another-signing-secret-32-chars-or-more';
const NOW = 1_800_000_000;

function verifier(keys: Record<string, string> = { k1: SECRET, k2: OTHER_SECRET }): SignatureVerifier {
  return new SignatureVerifier(new Map(Object.entries(keys)), new ProtectedPaths(['/video/'], 's3'));
}

async function verdict(
  query: string,
  facts: Partial<RequestFacts> = {},
  checker = verifier(),
): Promise<RefusalReason | undefined> {
  const read = readToken([...new URLSearchParams(query)]);
  if (!read.ok) return read.reason;
  return checker.verify(read.token, {
    path: '/video/ep1/seg1.ts',
    ip: undefined,
    country: undefined,
    now: NOW,
    ...facts,
  });
}

const folder: SignOptions = { keyId: 'k1', secret: SECRET, path: '/video/ep1/', prefix: true, expires: NOW + 60 };

/** Token options the verifier should admit for /video/ep1/seg1.ts from 192.0.2.7 in CH at NOW. */
const admissible = fc.record({
  keyId: fc.constantFrom('k1', 'k2'),
  prefix: fc.boolean(),
  ttl: fc.integer({ min: 1, max: 10 ** 8 }),
  since: fc.option(fc.integer({ min: 0, max: 10 ** 6 }), { nil: undefined }),
  ip: fc.option(fc.constant('192.0.2.7'), { nil: undefined }),
  country: fc.option(fc.constant('CH'), { nil: undefined }),
});
const FACTS = { ip: '192.0.2.7', country: 'CH' };

type Admissible = typeof admissible extends fc.Arbitrary<infer T> ? T : never;

function optionsOf(a: Admissible): SignOptions {
  return {
    keyId: a.keyId,
    secret: a.keyId === 'k1' ? SECRET : OTHER_SECRET,
    path: a.prefix ? '/video/ep1/' : '/video/ep1/seg1.ts',
    prefix: a.prefix,
    expires: NOW + a.ttl,
    ...(a.since === undefined ? {} : { notBefore: NOW - a.since }),
    ...(a.ip === undefined ? {} : { ip: a.ip }),
    ...(a.country === undefined ? {} : { country: a.country }),
  };
}

describe('signToken and SignatureVerifier', () => {
  it('round trip: whatever it binds, a token the signer made admits the request it was made for', async () => {
    await fc.assert(
      fc.asyncProperty(admissible, async (a) => {
        expect(await verdict(await signToken(optionsOf(a)), FACTS)).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('any one-bit change of any parameter’s value is refused', async () => {
    await fc.assert(
      fc.asyncProperty(admissible, fc.nat(), fc.nat(), fc.integer({ min: 0, max: 6 }), async (a, which, at, bit) => {
        const pairs = [...new URLSearchParams(await signToken(optionsOf(a)))];
        const index = which % pairs.length;
        const [name, value] = pairs[index] as [string, string];
        const position = at % value.length;
        const flipped = String.fromCharCode(value.charCodeAt(position) ^ (1 << bit));
        pairs[index] = [name, `${value.slice(0, position)}${flipped}${value.slice(position + 1)}`];
        const changed = new URLSearchParams(pairs).toString();
        expect(await verdict(changed, FACTS), `${name}: ${value} → ${pairs[index]?.[1]}`).not.toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  it('any one-bit change of the signature itself is tampered', async () => {
    const query = await signToken(folder);
    const read = readToken([...new URLSearchParams(query)]);
    if (!read.ok) throw new Error('the signer’s own token is unreadable');
    for (let bit = 0; bit < 256; bit++) {
      const signature = read.token.signature.slice();
      signature[bit >> 3] = (signature[bit >> 3] ?? 0) ^ (1 << (bit & 7));
      const facts = { path: '/video/ep1/a.ts', ip: undefined, country: undefined, now: NOW };
      expect(await verifier().verify({ ...read.token, signature }, facts)).toBe('tampered');
    }
  });

  it('names each reason a genuine token is refused for', async () => {
    expect(await verdict(await signToken({ ...folder, expires: NOW }))).toBe('expired');
    expect(await verdict(await signToken({ ...folder, notBefore: NOW + 1 }))).toBe('not-yet-valid');
    expect(await verdict(await signToken({ ...folder, path: '/video/ep2/' }))).toBe('wrong-prefix');
    expect(await verdict(await signToken({ ...folder, path: '/video/ep1/seg2.ts', prefix: false }))).toBe('wrong-path');
    expect(await verdict(await signToken({ ...folder, ip: '192.0.2.1' }), { ip: '198.51.100.1' })).toBe('wrong-ip');
    expect(await verdict(await signToken({ ...folder, ip: '192.0.2.1' }))).toBe('wrong-ip');
    expect(await verdict(await signToken({ ...folder, country: 'ch' }), { country: 'DE' })).toBe('wrong-country');
    expect(await verdict(await signToken({ ...folder, keyId: 'k9' }))).toBe('unknown-key');
    // Signed with k2's secret but naming k1.
    expect(await verdict(await signToken({ ...folder, secret: OTHER_SECRET }))).toBe('tampered');
    expect(await verdict('')).toBe('missing');
    expect(await verdict('tc_exp=1')).toBe('malformed');
  });

  it('grants a prefix in every spelling of a path under it, and no path beside it', async () => {
    const query = await signToken(folder);
    for (const path of ['/video/ep1/seg1.ts', '/video/ep1/sub/x.ts'])
      expect(await verdict(query, { path })).toBeUndefined();
    for (const path of ['/video/ep10/seg1.ts', '/video/ep1', '/video/'])
      expect(await verdict(query, { path })).toBe('wrong-prefix');
    // Signed in another spelling of the same folder (%65 is "e"; %2F is "/" inside an S3 key).
    expect(await verdict(await signToken({ ...folder, path: '/video%2F%65p1/' }))).toBeUndefined();
  });

  it('remembers a genuine signature: the second check of a token takes no turn of the event loop', async () => {
    const checker = verifier();
    const read = readToken([...new URLSearchParams(await signToken(folder))]);
    if (!read.ok) throw new Error('unreadable');
    const facts = { path: '/video/ep1/a.ts', ip: undefined, country: undefined, now: NOW };
    expect(checker.verify(read.token, facts)).toBeInstanceOf(Promise);
    await checker.verify(read.token, facts);
    expect(checker.verify(read.token, facts)).toBeUndefined();
    // What it binds is still judged on each request.
    expect(checker.verify(read.token, { ...facts, now: NOW + 60 })).toBe('expired');
    expect(checker.verify(read.token, { ...facts, path: '/video/ep2/a.ts' })).toBe('wrong-prefix');
  });

  it('knows a removed key no more: a new configuration is a new verifier', async () => {
    const query = await signToken(folder);
    expect(await verdict(query, {}, verifier({ k1: SECRET }))).toBeUndefined();
    expect(await verdict(query, {}, verifier({ k2: OTHER_SECRET }))).toBe('unknown-key');
  });
});
