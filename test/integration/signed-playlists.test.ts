// Signed playlists (worker/signed-playlists.ts, shared/playlists/; docs/private-content.md "Signed playlists"): a
// playlist admitted by a signed URL's folder token is rewritten for that client, each URI inside the token's scope
// carrying the same token, so a player handed the playlist's URL alone plays; the stored copy stays token-free and
// shared, one origin request for every client whatever token each holds.

import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SignOptions, signToken } from '../../shared/admission/signer.ts';
import { type Answer, cacheStatus, type Fixture, rawGet, settle, startFixture } from './fixture.ts';

const SECRET = 'playlist-signing-secret-0123456789abcdef';
const MEDIA = [
  '#EXTM3U',
  '#EXT-X-VERSION:7',
  '#EXT-X-TARGETDURATION:4',
  '# seg-0.ts was cut',
  '#EXT-X-KEY:METHOD=AES-128,URI="keys/k1.bin"',
  '#EXT-X-MAP:URI="init.mp4"',
  '#EXTINF:4,',
  'seg-1.ts',
  '#EXTINF:4,',
  '#EXT-X-BYTERANGE:6@0',
  'all.ts',
  '#EXTINF:4,',
  '../ep2/seg-1.ts',
  '#EXTINF:4,',
  '/paid/seg-1.ts',
  '#EXTINF:4,',
  '/public/seg-1.ts',
  '#EXTINF:4,',
  'https://other.example/video/ep1/seg-2.ts',
  '#EXT-X-ENDLIST',
  '',
].join('\n');
const MPD = `<?xml version="1.0"?>
<MPD type="static"><Period><AdaptationSet>
<SegmentTemplate media="$RepresentationID$/seg-$Number$.m4s" initialization="$RepresentationID$/init.mp4" startNumber="1"/>
<Representation id="720p" bandwidth="1"/></AdaptationSet></Period></MPD>
`;

let f: Fixture;

beforeAll(async () => {
  f = await startFixture({ SIGNING_KEYS: `k1=${SECRET}`, SIGNED_PREFIXES: '/video/,/paid/' });
  const hls = { 'content-type': 'application/vnd.apple.mpegurl' };
  for (const name of ['index', 'memory', 'conditional', 'ranged', 'cookie'])
    await f.origin.putObject(`video/ep1/${name}.m3u8`, MEDIA, hls);
  await f.origin.putObject('video/ep1/gzipped.m3u8', gzipSync(MEDIA), { ...hls, 'content-encoding': 'gzip' });
  await f.origin.putObject('video/ep1/corrupt.m3u8', gzipSync(MEDIA).subarray(0, 40), {
    ...hls,
    'content-encoding': 'gzip',
  });
  const long = `${MEDIA}${'#EXTINF:4,\nseg-x.ts\n'.repeat(60_000)}`;
  await f.origin.putObject('video/ep1/long.m3u8', long, hls);
  await f.origin.putObject('video/ep1/manifest.mpd', MPD, { 'content-type': 'application/dash+xml' });
  for (const name of ['seg-1.ts', 'all.ts', 'keys/k1.bin', 'init.mp4', '720p/seg-1.m4s'])
    await f.origin.putObject(`video/ep1/${name}`, `bytes of ${name}`, { 'content-type': 'video/mp2t' });
  await f.origin.putObject('video/ep2/seg-1.ts', 'another episode', { 'content-type': 'video/mp2t' });
});
afterAll(async () => {
  await f?.close();
});
beforeEach(() => f.tap.clear());

const now = (): number => Math.floor(Date.now() / 1000);
const folder = (more: Partial<SignOptions> = {}): SignOptions => ({
  keyId: 'k1',
  secret: SECRET,
  path: '/video/ep1/',
  prefix: true,
  expires: now() + 600,
  ...more,
});

/** The playlist's URL with a token's query. */
async function signed(path: string, options: SignOptions = folder()): Promise<{ url: string; token: string }> {
  const token = await signToken(options);
  return { url: `${path}?${token}`, token };
}

function originGets(path: string): number {
  return f.tap.requests.filter((r) => r.method === 'GET' && r.path.split('?')[0]?.endsWith(path)).length;
}

function edgeMember(answer: Answer): string[] {
  return cacheStatus(answer).at(-1) ?? [];
}

/** MEDIA as a client holding `token` gets it: the token on every URI inside /video/ep1/, nothing else changed. */
function rewrittenFor(token: string): string {
  return MEDIA.replace('"keys/k1.bin"', `"keys/k1.bin?${token}"`)
    .replace('"init.mp4"', `"init.mp4?${token}"`)
    .replace('\nseg-1.ts\n', `\nseg-1.ts?${token}\n`)
    .replace('\nall.ts\n', `\nall.ts?${token}\n`);
}

describe('a playlist under a signed folder, asked for with the token in its URL', () => {
  it('is rewritten for each client with its own token, from one stored copy and one origin request', async () => {
    const one = await signed('/video/ep1/index.m3u8');
    const other = await signed('/video/ep1/index.m3u8', folder({ expires: now() + 900 }));
    const first = await f.get(one.url);
    expect(first.status).toBe(200);
    expect(first.text).toBe(rewrittenFor(one.token));
    await settle();
    const second = await f.get(other.url);
    expect(second.text).toBe(rewrittenFor(other.token));
    expect(edgeMember(second).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(originGets('/video/ep1/index.m3u8')).toBe(1);
    // The stored copy is the origin's, token-free, under the plain URL.
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    const stored = await edge.match(new URL('/video/ep1/index.m3u8', f.stack.url).href);
    expect(await stored?.text()).toBe(MEDIA);
    expect(JSON.stringify(f.tap.requests)).not.toContain('tc_');
  });

  it('answers with the rewritten length, a weak ETag and private, so no shared cache keeps one client’s copy', async () => {
    const { url } = await signed('/video/ep1/index.m3u8');
    const answer = await rawGet(new URL(url, f.stack.url), {});
    expect(Number(answer.headers.get('content-length'))).toBe(answer.body.byteLength);
    expect(answer.headers.get('etag')).toMatch(/^W\/"/);
    expect(answer.headers.get('cache-control')).toMatch(/^private\b/);
    expect(answer.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    // A HEAD gets the headers its GET would, but for the length it does not know without the bytes.
    const head = await f.get(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(answer.headers.get('etag'));
    expect(head.headers.get('cache-control')).toBe(answer.headers.get('cache-control'));
    expect(head.headers.get('content-length')).toBe(null);
  });

  it('opens every segment, key and init section it names to a player holding that playlist URL alone', async () => {
    const { url } = await signed('/video/ep1/index.m3u8');
    const playlist = await f.get(url);
    const base = new URL(url, f.stack.url);
    const named = playlist.text.split('\n').flatMap((line) => {
      const attribute = /URI="([^"]+)"/.exec(line)?.[1];
      return attribute !== undefined ? [attribute] : line === '' || line.startsWith('#') ? [] : [line];
    });
    const inside = named.filter((uri) => uri.includes('tc_sig='));
    expect(inside).toHaveLength(4);
    for (const uri of inside) {
      const answer = await f.get(new URL(uri, base).href);
      expect(answer.status, uri).toBe(200);
      // A segment's answer is the stored one: its strong ETag, shared caching as the origin said.
      expect(answer.headers.get('etag'), uri).toMatch(/^"/);
      expect(answer.headers.get('cache-control') ?? '', uri).not.toMatch(/private/);
    }
  });

  it('leaves URIs outside the scope as written: another folder, another prefix, another host, comments', async () => {
    const { url } = await signed('/video/ep1/index.m3u8');
    const text = (await f.get(url)).text;
    for (const line of [
      '../ep2/seg-1.ts',
      '/paid/seg-1.ts',
      'https://other.example/video/ep1/seg-2.ts',
      '# seg-0.ts was cut',
    ])
      expect(text.split('\n'), line).toContain(line);
    // And the token does not open them either.
    const { token } = await signed('/video/ep1/index.m3u8');
    const outside = await f.get(`/video/ep2/seg-1.ts?${token}`);
    expect(outside.status).toBe(403);
    expect(edgeMember(outside)).toContain('detail=signature-wrong-prefix');
  });

  it('carries a wider token into every protected path it grants, never into a public one', async () => {
    const { url, token } = await signed('/video/ep1/index.m3u8', folder({ path: '/' }));
    const lines = (await f.get(url)).text.split('\n');
    for (const uri of ['../ep2/seg-1.ts', '/paid/seg-1.ts', 'seg-1.ts']) expect(lines).toContain(`${uri}?${token}`);
    // Outside SIGNED_PREFIXES admission leaves a token on the URL, for the cache key and an http origin to see.
    expect(lines).toContain('/public/seg-1.ts');
  });

  it('still refuses a segment whose token was tampered with, and a tampered playlist URL', async () => {
    const { url, token } = await signed('/video/ep1/index.m3u8');
    const text = (await f.get(url)).text;
    const segment = text.split('\n').find((line) => line.startsWith('seg-1.ts?')) ?? '';
    const sig = new URLSearchParams(token).get('tc_sig') ?? '';
    const forged = `${sig.slice(0, 5)}${sig[5] === 'A' ? 'B' : 'A'}${sig.slice(6)}`;
    const tampered = await f.get(`/video/ep1/${segment.replace(sig, forged)}`);
    expect(tampered.status).toBe(403);
    expect(edgeMember(tampered)).toContain('detail=signature-tampered');
    const playlist = await f.get(url.replace(sig, forged));
    expect(playlist.status).toBe(403);
    expect(playlist.text).not.toContain('seg-1.ts');
  });

  it('rewrites a hot playlist the memory layer answers', async () => {
    const path = '/video/ep1/memory.m3u8';
    await f.get((await signed(path)).url);
    await settle();
    expect(edgeMember(await f.get((await signed(path)).url)).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    // Now in memory only: the Cache API copy dropped behind the edge's back.
    const edge = await (await f.stack.mf.getCaches()).open('tiercache-edge');
    expect(await edge.delete(new URL(path, f.stack.url).href)).toBe(true);
    const fromMemory = await signed(path, folder({ expires: now() + 1200 }));
    const answer = await f.get(fromMemory.url);
    expect(edgeMember(answer).slice(0, 2)).toEqual(['tiercache-edge', 'hit']);
    expect(answer.text).toBe(rewrittenFor(fromMemory.token));
    expect(originGets(path)).toBe(1);
  });

  it('answers If-None-Match with its weak ETag by a 304 that keeps it weak and private (RFC 9110 §13.1.2)', async () => {
    const { url } = await signed('/video/ep1/conditional.m3u8');
    const first = await f.get(url);
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^W\//);
    const again = await f.get(url, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toMatch(/^private\b/);
  });

  it('answers a Range on a playlist whole, rewritten (RFC 9110 §14.2: a server may ignore Range)', async () => {
    const { url, token } = await signed('/video/ep1/ranged.m3u8');
    const answer = await f.get(url, { headers: { range: 'bytes=0-9' } });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(rewrittenFor(token));
    expect(answer.headers.get('accept-ranges')).toBe('none');
  });

  it('decodes a gzip playlist from the origin, and sends it rewritten, identity', async () => {
    const { url, token } = await signed('/video/ep1/gzipped.m3u8');
    const answer = await rawGet(new URL(url, f.stack.url), { 'accept-encoding': 'gzip' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-encoding')).toBe(null);
    expect(new TextDecoder().decode(answer.body)).toBe(rewrittenFor(token));
  });

  it('answers a gzip playlist that does not decode with a plain 502, never part of a playlist', async () => {
    const { url } = await signed('/video/ep1/corrupt.m3u8');
    const answer = await rawGet(new URL(url, f.stack.url), { 'accept-encoding': 'gzip' });
    expect(answer.status).toBe(502);
    expect(new TextDecoder().decode(answer.body)).toMatch(/^502 the playlist could not be read/);
    expect(cacheStatus(answer).at(-1)).toContain('detail=playlist-unreadable');
  });

  it('sends a playlist past 1 MiB as stored, unrewritten', async () => {
    const { url } = await signed('/video/ep1/long.m3u8');
    const answer = await f.get(url);
    expect(answer.status).toBe(200);
    expect(answer.body.byteLength).toBeGreaterThan(1024 * 1024);
    expect(answer.text.startsWith(MEDIA)).toBe(true);
    expect(answer.headers.get('etag')).not.toMatch(/^W\//);
  });

  it('rewrites a DASH manifest’s SegmentTemplate, the token written &amp; in XML', async () => {
    const { url, token } = await signed('/video/ep1/manifest.mpd');
    const answer = await f.get(url);
    const xml = token.replaceAll('&', '&amp;');
    expect(answer.text).toBe(
      MPD.replace('seg-$Number$.m4s"', `seg-$Number$.m4s?${xml}"`).replace('init.mp4"', `init.mp4?${xml}"`),
    );
    const segment = /media="([^"]+)"/.exec(answer.text)?.[1]?.replaceAll('&amp;', '&') ?? '';
    const first = segment.replace('$RepresentationID$', '720p').replace('$Number$', '1');
    expect((await f.get(new URL(first, new URL(url, f.stack.url)).href)).status).toBe(200);
  });

  it('leaves the playlist as stored for the cookie form and for a token of one path', async () => {
    const token = await signToken(folder());
    const byCookie = await f.get('/video/ep1/cookie.m3u8', { headers: { cookie: `tc_token=${token}` } });
    expect(byCookie.text).toBe(MEDIA);
    expect(byCookie.headers.get('etag')).not.toMatch(/^W\//);
    const onePath = await signed('/video/ep1/cookie.m3u8', folder({ path: '/video/ep1/cookie.m3u8', prefix: false }));
    expect((await f.get(onePath.url)).text).toBe(MEDIA);
  });
});
