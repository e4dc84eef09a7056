import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dashUris } from '../../../shared/playlists/dash-uris.ts';
import { hlsUris } from '../../../shared/playlists/hls-uris.ts';
import { resolvedCandidates } from '../../../shared/playlists/named-uri.ts';
import { playlistFormat, withPlaylistToken } from '../../../shared/playlists/playlist-token.ts';
import { carry, granted, PLAYLIST, TOKEN } from './scope.ts';

const rewrite = (text: string): string => withPlaylistToken(text, carry());
/** The token as an XML attribute or text carries it. */
const XML_TOKEN = TOKEN.replaceAll('&', '&amp;');

describe('withPlaylistToken, HLS', () => {
  it('carries the token into every URI inside the folder: segments, keys, the init section, byte ranges', () => {
    const text = [
      '#EXTM3U',
      '#EXT-X-KEY:METHOD=AES-128,URI="keys/k1.bin"',
      '#EXT-X-MAP:URI="init.mp4"',
      '#EXTINF:4,',
      '#EXT-X-BYTERANGE:1000@0',
      'all.m4s',
      '#EXTINF:4,',
      'seg-2.m4s?v=2#t=1',
      '',
    ].join('\n');
    expect(rewrite(text)).toBe(
      [
        '#EXTM3U',
        `#EXT-X-KEY:METHOD=AES-128,URI="keys/k1.bin?${TOKEN}"`,
        `#EXT-X-MAP:URI="init.mp4?${TOKEN}"`,
        '#EXTINF:4,',
        '#EXT-X-BYTERANGE:1000@0',
        `all.m4s?${TOKEN}`,
        '#EXTINF:4,',
        `seg-2.m4s?v=2&${TOKEN}#t=1`,
        '',
      ].join('\n'),
    );
  });

  it('carries it into a master playlist’s variants, renditions and I-frame playlists in subfolders', () => {
    const text =
      '#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="audio/en.m3u8"\n' +
      '#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="720p/i.m3u8"\n';
    expect(rewrite(text)).toBe(
      `#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="audio/en.m3u8?${TOKEN}"\n` +
        `#EXT-X-STREAM-INF:BANDWIDTH=1\n720p/index.m3u8?${TOKEN}\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI="720p/i.m3u8?${TOKEN}"\n`,
    );
  });

  it('leaves untouched every URI outside the scope: other hosts, schemes, folders, and spellings that climb out', () => {
    const outside = [
      'https://other.example/video/ep1/seg.ts',
      'http://cdn.example/video/ep1/seg.ts',
      'https://cdn.example:8443/video/ep1/seg.ts',
      '//other.example/video/ep1/seg.ts',
      'skd://key-1',
      'data:text/plain;base64,AAAA',
      '../ep2/seg.ts',
      '/video/ep10/seg.ts',
      '/video/ep1',
      '..%2Fep2/seg.ts',
      'a/..%2F..%2Fep2/seg.ts',
      '/public/seg.ts',
    ];
    const text = `#EXTM3U\n${outside.map((uri) => `#EXTINF:4,\n${uri}\n`).join('')}`;
    expect(rewrite(text)).toBe(text);
  });

  it('carries it into absolute URIs on the playlist’s own origin inside the scope, in any spelling the edge grants', () => {
    const text = '#EXTM3U\nhttps://cdn.example/video/ep1/a.ts\n/video/ep1/sub/b.ts\n/video/%65p1/c.ts\n./d.ts\n';
    expect(rewrite(text)).toBe(
      `#EXTM3U\nhttps://cdn.example/video/ep1/a.ts?${TOKEN}\n/video/ep1/sub/b.ts?${TOKEN}\n/video/%65p1/c.ts?${TOKEN}\n./d.ts?${TOKEN}\n`,
    );
  });

  it('leaves a URI that carries a token of its own (signed one by one), and so changes nothing on a second pass', () => {
    const text = '#EXTM3U\nseg-1.ts?tc_path=%2Fvideo%2Fep1%2Fseg-1.ts&tc_exp=1&tc_kid=k&tc_sig=x\nseg-2.ts\n';
    const once = rewrite(text);
    expect(once).toBe(
      `#EXTM3U\nseg-1.ts?tc_path=%2Fvideo%2Fep1%2Fseg-1.ts&tc_exp=1&tc_kid=k&tc_sig=x\nseg-2.ts?${TOKEN}\n`,
    );
    expect(rewrite(once)).toBe(once);
  });

  it('keeps CR LF, blank lines, comments and a BOM as they were', () => {
    const text = '\uFEFF#EXTM3U\r\n# seg-0.ts was here\r\n\r\n#EXTINF:4,\r\nseg-1.ts\r\n';
    expect(rewrite(text)).toBe(`\uFEFF#EXTM3U\r\n# seg-0.ts was here\r\n\r\n#EXTINF:4,\r\nseg-1.ts?${TOKEN}\r\n`);
  });

  it('leaves what is no playlist as it is, whatever it names', () => {
    for (const text of ['seg-1.ts\n', '<html><a href="seg-1.ts">x</a></html>', '']) expect(rewrite(text)).toBe(text);
    expect(playlistFormat('#EXTM3U\n')).toBe('hls');
  });
});

describe('withPlaylistToken, DASH', () => {
  const mpd = (body: string): string => `<?xml version="1.0"?>\n<MPD type="static">${body}</MPD>\n`;

  it('carries the token, written &amp;, into templates, segment URLs, init sources and BaseURLs in the scope', () => {
    const text = mpd(`<Period><AdaptationSet>
      <SegmentTemplate media="$RepresentationID$/seg-$Number$.m4s" initialization="$RepresentationID$/init.mp4"/>
      <Representation id="720p"><BaseURL>hd/</BaseURL></Representation>
      <Representation id="480p"><SegmentList><Initialization sourceURL="sd/init.mp4"/>
        <SegmentURL media="sd/1.m4s?v=1&amp;w=2"/></SegmentList></Representation></AdaptationSet></Period>`);
    expect(rewrite(text)).toBe(
      mpd(`<Period><AdaptationSet>
      <SegmentTemplate media="$RepresentationID$/seg-$Number$.m4s?${XML_TOKEN}" initialization="$RepresentationID$/init.mp4?${XML_TOKEN}"/>
      <Representation id="720p"><BaseURL>hd/?${XML_TOKEN}</BaseURL></Representation>
      <Representation id="480p"><SegmentList><Initialization sourceURL="sd/init.mp4?${XML_TOKEN}"/>
        <SegmentURL media="sd/1.m4s?v=1&amp;w=2&amp;${XML_TOKEN}"/></SegmentList></Representation></AdaptationSet></Period>`),
    );
  });

  it('leaves everything below a BaseURL on another host, and below alternatives of which one is elsewhere', () => {
    const elsewhere = mpd(`<BaseURL>https://other.example/video/ep1/</BaseURL>
      <Period><SegmentTemplate media="seg-$Number$.m4s"/></Period>`);
    expect(rewrite(elsewhere)).toBe(elsewhere);
    const alternatives = mpd(`<Period><BaseURL>https://other.example/video/ep1/</BaseURL><BaseURL>./</BaseURL>
      <SegmentTemplate media="seg-$Number$.m4s"/></Period>`);
    // The in-scope alternative carries the token itself; what lies below both does not (it could go elsewhere).
    expect(rewrite(alternatives)).toBe(
      alternatives.replace('<BaseURL>./</BaseURL>', `<BaseURL>./?${XML_TOKEN}</BaseURL>`),
    );
  });

  it('judges each URI against its BaseURL: one that climbs out of the folder stays as it was', () => {
    const text = mpd(`<BaseURL>../ep2/</BaseURL><Period><SegmentTemplate media="seg-$Number$.m4s"/>
      <SegmentURL media="../ep1/in.m4s"/></Period>`);
    expect(rewrite(text)).toBe(text.replace('"../ep1/in.m4s"', `"../ep1/in.m4s?${XML_TOKEN}"`));
  });

  it('leaves a $RepresentationID$ template when an id could move it (a `/`, `:` or `..` in it)', () => {
    for (const id of ['a/../../ep2', '//other.example', '..']) {
      const text = mpd(
        `<Period><SegmentTemplate media="$RepresentationID$/s.m4s"/><Representation id="${id}"/></Period>`,
      );
      expect(rewrite(text), id).toBe(text);
    }
  });

  it('never changes a comment or a document that does not scan', () => {
    const comment = mpd('<!-- <SegmentURL media="a.m4s"/> --><Period/>');
    expect(rewrite(comment)).toBe(comment);
    const broken = '<MPD><Period><SegmentURL media="a.m4s"/></MPD>';
    expect(rewrite(broken)).toBe(broken);
  });
});

/** URIs of every kind the properties mix: inside the scope, outside it, elsewhere, unknowable. */
const uri = fc.constantFrom(
  'seg-1.ts',
  'sub/seg-2.ts?v=3',
  './x.ts#t=2',
  '/video/ep1/a.ts',
  'https://cdn.example/video/ep1/b.ts',
  'https://other.example/video/ep1/c.ts',
  '../ep2/d.ts',
  '..%2Fep2/e.ts',
  '/video/ep10/f.ts',
  'skd://key',
  'g.ts?tc_path=%2Fvideo%2Fep1%2Fg.ts&tc_sig=x',
  '{$v}/h.ts',
);
const hlsLine = fc.oneof(
  uri,
  uri.map((u) => `#EXT-X-MAP:URI="${u}"`),
  uri.map((u) => `#EXT-X-KEY:METHOD=AES-128,URI="${u}",IV=0x1`),
  uri.map((u) => `#EXT-X-MEDIA:TYPE=AUDIO,NAME="a, b",URI="${u}"`),
  uri.map((u) => `# a comment naming ${u}`),
  uri.map((u) => `#COMMENT:URI="${u}"`),
  fc.constantFrom('#EXTINF:4,', '#EXT-X-BYTERANGE:100@0', '', '#EXT-X-ENDLIST'),
);
const hlsPlaylist = fc
  .tuple(fc.array(hlsLine, { maxLength: 12 }), fc.constantFrom('\n', '\r\n'), fc.constantFrom('', '\uFEFF'))
  .map(([lines, eol, bom]) => bom + ['#EXTM3U', ...lines].join(eol) + eol);
const dashManifest = fc
  .tuple(fc.option(uri), fc.array(fc.tuple(fc.option(uri), uri, uri), { maxLength: 4 }))
  .map(([base, sets]) => {
    const baseUrl = (u: string | null): string =>
      u === null ? '' : `<BaseURL>${u.replaceAll('&', '&amp;')}</BaseURL>`;
    const body = sets
      .map(
        ([set, media, segment]) =>
          `<AdaptationSet>${baseUrl(set)}<SegmentTemplate media="${media.replaceAll('&', '&amp;')}"/>` +
          `<!-- ${segment} --><SegmentURL media="${segment.replaceAll('&', '&amp;')}"/></AdaptationSet>`,
      )
      .join('');
    return `<?xml version="1.0"?><MPD>${baseUrl(base)}<Period>${body}</Period></MPD>`;
  });

describe('withPlaylistToken, as properties of any playlist', () => {
  /** The text with every token this rewrite could have added taken out again. */
  const untokened = (text: string): string =>
    text
      .replaceAll(`&amp;${XML_TOKEN}`, '')
      .replaceAll(`?${XML_TOKEN}`, '')
      .replaceAll(`&${TOKEN}`, '')
      .replaceAll(`?${TOKEN}`, '');

  for (const [format, playlist] of [
    ['HLS', hlsPlaylist],
    ['DASH', dashManifest],
  ] as const) {
    it(`${format}: changes nothing but tokens added, and a second pass changes nothing`, () => {
      fc.assert(
        fc.property(playlist, (text) => {
          const once = rewrite(text);
          expect(untokened(once)).toBe(text);
          expect(rewrite(once)).toBe(once);
        }),
      );
    });

    it(`${format}: a URI carries the token exactly when every URL it may name is on this origin and in the scope`, () => {
      fc.assert(
        fc.property(playlist, (text) => {
          const once = rewrite(text);
          const { uris, representationIds } =
            format === 'HLS' ? { uris: hlsUris(once), representationIds: [] } : dashUris(once);
          for (const named of uris) {
            const carried = named.uri.endsWith(TOKEN) || named.uri.includes(`${TOKEN}#`);
            const before = { ...named, uri: untokened(named.uri) };
            const candidates = resolvedCandidates(before, PLAYLIST, representationIds);
            const inside =
              (candidates?.every((url) => url.origin === 'https://cdn.example' && granted(url)) ?? false) &&
              !before.uri.includes('tc_');
            expect(carried, named.uri).toBe(inside);
          }
        }),
      );
    });
  }

  it('HLS: never changes a comment line', () => {
    fc.assert(
      fc.property(hlsPlaylist, (text) => {
        const lines = rewrite(text).split('\n');
        const comments = (all: string[]) => all.filter((line) => line.startsWith('#') && !line.startsWith('#EXT'));
        expect(comments(lines)).toEqual(comments(text.split('\n')));
      }),
    );
  });
});
