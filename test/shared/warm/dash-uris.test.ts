import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoSeconds, substitute } from '../../../shared/warm/dash-uris.ts';
import { playlistUris } from '../../../shared/warm/playlist-uris.ts';

const BASE = new URL('https://cdn.example/video/ep1/manifest.mpd');

function dash(text: string, limit = 10_000) {
  return playlistUris(text, 'dash', BASE, limit);
}

function media(text: string): string[] {
  const found = dash(text);
  if ('error' in found) throw new Error(found.error);
  return found.media.map((href) => href.replace('https://cdn.example/video/ep1/', ''));
}

const mpd = (body: string, attributes = 'mediaPresentationDuration="PT10S"'): string =>
  `<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" ${attributes}>${body}</MPD>`;

describe('a DASH manifest (ISO/IEC 23009-1)', () => {
  it('numbers a SegmentTemplate by @duration over the Period, for each Representation (§5.3.9.4)', () => {
    const text = mpd(`<Period><AdaptationSet>
      <SegmentTemplate media="$RepresentationID$/seg-$Number%03d$.m4s" initialization="$RepresentationID$/init.mp4"
        startNumber="1" timescale="1000" duration="4000"/>
      <Representation id="720p" bandwidth="3000000"/>
      <Representation id="360p" bandwidth="800000"/>
    </AdaptationSet></Period>`);
    expect(media(text)).toEqual([
      '720p/init.mp4',
      '720p/seg-001.m4s',
      '720p/seg-002.m4s',
      '720p/seg-003.m4s',
      '360p/init.mp4',
      '360p/seg-001.m4s',
      '360p/seg-002.m4s',
      '360p/seg-003.m4s',
    ]);
  });

  it('walks a SegmentTimeline, its @r repeats and a -1 to the end of the Period, with $Time$', () => {
    const text = mpd(
      `<Period duration="PT12S"><AdaptationSet><Representation id="a" bandwidth="128000">
        <SegmentTemplate media="a-$Time$.m4s" initialization="a-init.mp4" timescale="10">
          <SegmentTimeline><S t="0" d="40" r="1"/><S d="20" r="-1"/></SegmentTimeline>
        </SegmentTemplate></Representation></AdaptationSet></Period>`,
      '',
    );
    expect(media(text)).toEqual(['a-init.mp4', 'a-0.m4s', 'a-40.m4s', 'a-80.m4s', 'a-100.m4s']);
  });

  it('takes the BaseURLs above a Representation, and its SegmentList or its own file (§5.6, §5.3.9.3)', () => {
    const text = mpd(`<BaseURL>media/</BaseURL><Period>
      <AdaptationSet><BaseURL>audio/</BaseURL>
        <Representation id="a"><BaseURL>en.mp4</BaseURL><SegmentBase indexRange="0-800"/></Representation>
      </AdaptationSet>
      <AdaptationSet><Representation id="v"><SegmentList>
        <Initialization sourceURL="v/init.mp4"/><SegmentURL media="v/1.m4s"/><SegmentURL media="v/2.m4s"/>
      </SegmentList></Representation></AdaptationSet>
    </Period>`);
    expect(media(text)).toEqual(['media/audio/en.mp4', 'media/v/init.mp4', 'media/v/1.m4s', 'media/v/2.m4s']);
  });

  it('lets a Representation override the template above it, and times several Periods by their starts', () => {
    const text = mpd(
      `<Period start="PT0S"><AdaptationSet><SegmentTemplate media="p1-$Number$.m4s" duration="2" startNumber="0"/>
        <Representation id="x"><SegmentTemplate media="x1-$Number$.m4s"/></Representation></AdaptationSet></Period>
       <Period start="PT4S"><AdaptationSet><SegmentTemplate media="p2-$Number$.m4s" duration="3"/>
        <Representation id="y"/></AdaptationSet></Period>`,
      'mediaPresentationDuration="PT7S"',
    );
    expect(media(text)).toEqual(['x1-0.m4s', 'x1-1.m4s', 'p2-1.m4s']);
  });

  it('refuses a live manifest, another XML document, and one that cannot be counted', () => {
    expect(dash(mpd('', 'type="dynamic"').replace('type="static" ', ''))).toEqual({
      error: expect.stringMatching(/live \(type="dynamic"\)/),
    });
    expect(dash('<html><body/></html>')).toEqual({ error: expect.stringMatching(/root element is <html>/) });
    expect(dash('<MPD><Period>')).toEqual({ error: expect.stringMatching(/not readable XML/) });
    const noLength = mpd(
      '<Period><AdaptationSet><Representation id="a"><SegmentTemplate media="$Number$" duration="2"/></Representation></AdaptationSet></Period>',
      '',
    );
    expect(dash(noLength)).toEqual({ error: expect.stringMatching(/Period of no known length/) });
    const endless = mpd(
      '<Period duration="P100000D"><AdaptationSet><Representation id="a"><SegmentTemplate media="same.m4s" duration="1"/></Representation></AdaptationSet></Period>',
    );
    expect(dash(endless)).toEqual({ error: expect.stringMatching(/more than 200000 segments/) });
  });

  it('stops at its limit rather than build a long list', () => {
    const text = mpd(
      '<Period><AdaptationSet><Representation id="a"><SegmentTemplate media="$Number$.m4s" duration="1"/></Representation></AdaptationSet></Period>',
    );
    expect(dash(text, 5)).toEqual({ error: 'the playlist names more than 5 URIs' });
  });

  it('names as many segments of @duration as the Period holds, the last one shorter', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 1, max: 10 }), (seconds, duration) => {
        const text = mpd(
          `<Period duration="PT${seconds}S"><AdaptationSet><Representation id="r"><SegmentTemplate media="$Number$.m4s" duration="${duration}"/></Representation></AdaptationSet></Period>`,
          '',
        );
        expect(media(text)).toHaveLength(Math.ceil(seconds / duration));
      }),
    );
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), (body) => {
        const found = dash(mpd(body));
        return 'error' in found || Array.isArray(found.media);
      }),
    );
  });
});

describe('substitute (§5.3.9.4.4)', () => {
  it('replaces the identifiers, pads to a width, and unescapes $$', () => {
    const values = { RepresentationID: 'v1', Number: '7', Bandwidth: '500', Time: '9000' };
    expect(substitute('$RepresentationID$/$Number%05d$-$Bandwidth$-$Time$.m4s', values)).toBe('v1/00007-500-9000.m4s');
    expect(substitute('a$$b$Unknown$', values)).toBe('a$b$Unknown$');
  });
});

describe('isoSeconds (xs:duration)', () => {
  it('reads the durations MPDs write', () => {
    expect(isoSeconds('PT10S')).toBe(10);
    expect(isoSeconds('PT1H2M3.5S')).toBe(3723.5);
    expect(isoSeconds('P1DT1S')).toBe(86_401);
    expect(isoSeconds('PT0S')).toBe(0);
    for (const bad of ['P', 'PT', '10S', 'PT-1S', 'abc']) expect(isoSeconds(bad), bad).toBeUndefined();
    expect(isoSeconds(undefined)).toBeUndefined();
  });
});
