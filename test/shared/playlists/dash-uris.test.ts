import { describe, expect, it } from 'vitest';
import { dashUris, isDashManifest } from '../../../shared/playlists/dash-uris.ts';

/** The URIs named, each with its BaseURL chain (levels joined by ` > `, alternatives by ` | `). */
function named(text: string): string[] {
  return dashUris(text).uris.map((uri) => {
    expect(text.slice(uri.start, uri.end).replaceAll('&amp;', '&')).toBe(uri.uri);
    const bases = uri.bases.map((level) => level.join(' | ')).join(' > ');
    return `${uri.uri}${uri.template ? ' (template)' : ''}${bases === '' ? '' : ` @ ${bases}`}`;
  });
}

const mpd = (body: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static">${body}</MPD>\n`;

describe('isDashManifest', () => {
  it('knows a manifest by its MPD root, after an XML declaration, comments, a BOM or a namespace prefix', () => {
    for (const text of [mpd(''), '<MPD/>', '\uFEFF <!-- made by x --><MPD>', '<mpd:MPD xmlns:mpd="urn:x">'])
      expect(isDashManifest(text), text).toBe(true);
  });

  it('refuses other XML and HTML', () => {
    for (const text of ['<html><MPD>', '<?xml version="1.0"?><SmoothStreamingMedia/>', '<MPDX/>', '#EXTM3U'])
      expect(isDashManifest(text), text).toBe(false);
  });
});

describe('dashUris', () => {
  it('names SegmentTemplate’s media and initialization as templates, below each BaseURL level (§5.6.4)', () => {
    const text = mpd(`
  <BaseURL>https://cdn.example/video/ep1/</BaseURL>
  <Period id="1">
    <AdaptationSet mimeType="video/mp4">
      <SegmentTemplate media="$RepresentationID$/seg-$Number%05d$.m4s" initialization="$RepresentationID$/init.mp4" startNumber="1"/>
      <Representation id="720p" bandwidth="2400000"><BaseURL>hd/</BaseURL></Representation>
    </AdaptationSet>
  </Period>`);
    expect(named(text)).toEqual([
      'https://cdn.example/video/ep1/',
      '$RepresentationID$/seg-$Number%05d$.m4s (template) @ https://cdn.example/video/ep1/',
      '$RepresentationID$/init.mp4 (template) @ https://cdn.example/video/ep1/',
      'hd/ @ https://cdn.example/video/ep1/',
    ]);
    expect(dashUris(text).representationIds).toEqual(['720p']);
  });

  it('names SegmentURL’s media and index, and the sourceURL of Initialization and RepresentationIndex', () => {
    const text = mpd(`<Period><AdaptationSet><Representation id="a">
      <SegmentList duration="4"><Initialization sourceURL="init.mp4" range="0-700"/>
        <SegmentURL media="seg-1.m4s" index="seg-1.sidx"/><SegmentURL media='seg-2.m4s'/></SegmentList>
      <SegmentBase><RepresentationIndex sourceURL="index.sidx"/></SegmentBase>
    </Representation></AdaptationSet></Period>`);
    expect(named(text)).toEqual(['init.mp4', 'seg-1.m4s', 'seg-1.sidx', 'seg-2.m4s', 'index.sidx']);
  });

  it('gives each alternative BaseURL of a level, and a Location resolves against the manifest alone', () => {
    const text = mpd(`<Location>manifest.mpd</Location><Period>
      <BaseURL serviceLocation="a">https://a.example/v/</BaseURL><BaseURL serviceLocation="b">/video/ep1/</BaseURL>
      <AdaptationSet><SegmentTemplate media="s-$Number$.m4s"/></AdaptationSet></Period>`);
    expect(named(text)).toEqual([
      'manifest.mpd',
      'https://a.example/v/',
      '/video/ep1/',
      's-$Number$.m4s (template) @ https://a.example/v/ | /video/ep1/',
    ]);
  });

  it('reads the five predefined entities; leaves a URI with a character reference or another entity alone', () => {
    const text = mpd(`<Period><AdaptationSet>
      <SegmentTemplate media="s.m4s?a=1&amp;b=$Number$" initialization="i&#46;mp4"/>
      <SegmentURL media="x&nbsp;.m4s"/></AdaptationSet></Period>`);
    expect(named(text)).toEqual(['s.m4s?a=1&b=$Number$ (template)']);
  });

  it('never names what a comment, a CDATA section or a processing instruction holds', () => {
    const text = mpd(`<!-- <BaseURL>https://old.example/</BaseURL> <SegmentURL media="x.m4s"/> -->
      <?note <SegmentURL media="pi.m4s"/> ?><Period><BaseURL><![CDATA[cdata/]]></BaseURL>
      <AdaptationSet><SegmentURL media="below-cdata.m4s"/></AdaptationSet></Period><Period><SegmentURL media="y.m4s"/></Period>`);
    // The CDATA BaseURL is not read, so nothing below it is judged either.
    expect(named(text)).toEqual(['y.m4s']);
  });

  it('reads attributes in either quotes, with `>` inside a value, and namespace prefixes', () => {
    const text = `<mpd:MPD xmlns:mpd="urn:mpeg:dash:schema:mpd:2011"><mpd:Period title="a > b">
      <mpd:SegmentURL mpd:media='a>b.m4s'/></mpd:Period></mpd:MPD>`;
    expect(named(text)).toEqual(['a>b.m4s']);
  });

  it('names nothing in a document that does not scan: a tag left open, crossed tags, a DOCTYPE with declarations', () => {
    for (const text of [
      '<MPD><Period><SegmentURL media="a.m4s"/></MPD>',
      '<MPD><Period><AdaptationSet></Period></AdaptationSet><SegmentURL media="a.m4s"/></MPD>',
      '<!DOCTYPE MPD [<!ENTITY e "x">]><MPD><SegmentURL media="&e;.m4s"/></MPD>',
      '<MPD><SegmentURL media="a.m4s"',
      '<MPD><!-- open <SegmentURL media="a.m4s"/></MPD>',
    ])
      expect(named(text), text).toEqual([]);
  });
});
