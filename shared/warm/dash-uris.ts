// What a DASH manifest (an MPD, ISO/IEC 23009-1) names: for each Representation of each Period, its initialization
// segment and its media segments, from a SegmentTemplate (numbered by duration or by a SegmentTimeline), a SegmentList,
// or the Representation's own BaseURL (a single file, SegmentBase), each resolved against the BaseURLs above it. Only a
// static MPD names a fixed list; a live one (type="dynamic") is refused.

import type { PlaylistProblem, UriList } from './uri-list.ts';
import { childNamed, childrenNamed, parseXml, type XmlElement } from './xml-tree.ts';

/** Most elements read of one manifest: a SegmentList of this many segments is longer than any warm. */
const MAX_ELEMENTS = 200_000;
/**
 * Most segments the templates of one manifest are numbered to, whatever they name: a template without `$Number$` or
 * `$Time$` names one URI however many segments its Period holds, and counting them must still end.
 */
const MAX_TEMPLATE_SEGMENTS = 200_000;

/** A SegmentTemplate's attributes as inherited (§5.3.9.1: a lower level's attribute replaces the one above). */
type Template = ReadonlyMap<string, string>;

/** Where a Representation sits: the BaseURL it resolves against, its Period's length, the templates above it. */
interface Level {
  base: URL;
  /** The Period's duration in seconds, where the MPD says it. */
  seconds: number | undefined;
  template: Template;
  timeline: XmlElement | undefined;
  list: XmlElement | undefined;
}

/** The manifest's segments added to `list`; a problem when it is not a static MPD. */
export function dashUris(text: string, playlist: URL, list: UriList): PlaylistProblem | undefined {
  const mpd = parseXml(text, MAX_ELEMENTS);
  if ('error' in mpd) return { error: `the manifest is not readable XML: ${mpd.error}` };
  if (mpd.name !== 'MPD') return { error: `the manifest is not DASH: its root element is <${mpd.name}>, not <MPD>` };
  // §5.3.1.2: type "dynamic" is a live presentation, whose segments appear as time passes.
  if (mpd.attributes.get('type') === 'dynamic')
    return { error: 'the manifest is live (type="dynamic"): it names no fixed list of segments to warm' };
  const base = baseUrl(mpd, playlist);
  const total = isoSeconds(mpd.attributes.get('mediaPresentationDuration'));
  const periods = childrenNamed(mpd, 'Period');
  const numbered = { segments: 0 };
  for (const [i, period] of periods.entries()) {
    const start = isoSeconds(period.attributes.get('start')) ?? 0;
    const next = isoSeconds(periods[i + 1]?.attributes.get('start'));
    // §5.3.2.1: a Period lasts its @duration, else until the next one starts, else until the presentation ends.
    const seconds =
      isoSeconds(period.attributes.get('duration')) ??
      (next !== undefined ? next - start : total !== undefined ? total - start : undefined);
    const level = below({ base, seconds, template: new Map(), timeline: undefined, list: undefined }, period);
    for (const set of childrenNamed(period, 'AdaptationSet')) {
      const inSet = below(level, set);
      for (const representation of childrenNamed(set, 'Representation')) {
        const problem = representationUris(representation, below(inSet, representation), list, numbered);
        if (problem !== undefined) return problem;
      }
    }
  }
  return undefined;
}

/** One Representation's segments: from its template, its list, or its BaseURL alone. */
function representationUris(
  representation: XmlElement,
  level: Level,
  list: UriList,
  numbered: { segments: number },
): PlaylistProblem | undefined {
  const values = {
    RepresentationID: representation.attributes.get('id') ?? '',
    Bandwidth: representation.attributes.get('bandwidth') ?? '',
  };
  // Each Representation a rendition of its own: what a player of it reads, in order (segment prefetching's groups).
  list.group();
  const media = level.template.get('media');
  if (media !== undefined) {
    const initialization = level.template.get('initialization');
    if (initialization !== undefined) list.add('media', substitute(initialization, values), level.base);
    return templateUris(media, level, values, list, numbered);
  }
  if (level.list !== undefined) {
    const init = childNamed(level.list, 'Initialization')?.attributes.get('sourceURL');
    if (init !== undefined) list.add('media', init, level.base);
    // §5.3.9.3.2: a SegmentURL without @media is the BaseURL itself (a byte range of it).
    for (const segment of childrenNamed(level.list, 'SegmentURL'))
      list.add('media', segment.attributes.get('media') ?? '', level.base);
    return undefined;
  }
  // §5.3.9.2: SegmentBase (or nothing): the Representation is one file, its BaseURL.
  const init = childNamed(childNamed(representation, 'SegmentBase'), 'Initialization')?.attributes.get('sourceURL');
  if (init !== undefined) list.add('media', init, level.base);
  list.add('media', '', level.base);
  return undefined;
}

/**
 * A SegmentTemplate's media segments (§5.3.9.4): each S of its SegmentTimeline (its @r repeats, -1 until the Period
 * ends), else as many segments of @duration as the Period holds, numbered from @startNumber.
 */
function templateUris(
  media: string,
  level: Level,
  values: { RepresentationID: string; Bandwidth: string },
  list: UriList,
  numbered: { segments: number },
): PlaylistProblem | undefined {
  const timescale = positive(level.template.get('timescale')) ?? 1;
  let number = whole(level.template.get('startNumber')) ?? 1;
  const add = (time: number): void => {
    numbered.segments++;
    list.add('media', substitute(media, { ...values, Number: String(number++), Time: String(time) }), level.base);
  };
  const tooMany: PlaylistProblem = { error: `the templates number more than ${MAX_TEMPLATE_SEGMENTS} segments` };
  const end = level.seconds === undefined ? undefined : level.seconds * timescale;
  if (level.timeline !== undefined) {
    const offset = whole(level.template.get('presentationTimeOffset')) ?? 0;
    let time = 0;
    for (const s of childrenNamed(level.timeline, 'S')) {
      const d = positive(s.attributes.get('d'));
      if (d === undefined) return { error: 'a SegmentTimeline S has no positive @d' };
      time = whole(s.attributes.get('t')) ?? time;
      const r = Number(s.attributes.get('r') ?? 0);
      if (r < 0 && end === undefined) return { error: 'a SegmentTimeline repeats to the end of a Period of no length' };
      for (let k = 0; (r < 0 ? end !== undefined && time - offset < end : k <= r) && !list.full; k++) {
        if (numbered.segments >= MAX_TEMPLATE_SEGMENTS) return tooMany;
        add(time);
        time += d;
      }
    }
    return undefined;
  }
  const duration = positive(level.template.get('duration'));
  if (duration === undefined) return { error: 'a SegmentTemplate has neither a SegmentTimeline nor a @duration' };
  if (end === undefined) return { error: 'a SegmentTemplate numbers segments of a Period of no known length' };
  // §5.3.9.5.3: the last segment may be shorter; it is still a segment.
  const count = Math.ceil(end / duration - 1e-9);
  if (numbered.segments + count > MAX_TEMPLATE_SEGMENTS) return tooMany;
  for (let k = 0; k < count && !list.full; k++) add(k * duration);
  return undefined;
}

/** `level` seen from `element` (a Period, AdaptationSet or Representation) below it. */
function below(level: Level, element: XmlElement): Level {
  const template = childNamed(element, 'SegmentTemplate');
  return {
    base: baseUrl(element, level.base),
    seconds: level.seconds,
    template: template === undefined ? level.template : new Map([...level.template, ...template.attributes]),
    timeline: childNamed(template, 'SegmentTimeline') ?? level.timeline,
    list: childNamed(element, 'SegmentList') ?? level.list,
  };
}

/** §5.6: the element's first BaseURL resolved against the one above it; that one where it has none. */
function baseUrl(element: XmlElement, above: URL): URL {
  const text = childNamed(element, 'BaseURL')?.text.trim();
  return text !== undefined && text !== '' && URL.canParse(text, above.href) ? new URL(text, above) : above;
}

/**
 * §5.3.9.4.4: `$RepresentationID$`, `$Number$`, `$Bandwidth$` and `$Time$` replaced (with a `%0<width>d` format, padded
 * to that width), `$$` an escaped `$`; an identifier not known here is left as written.
 */
export function substitute(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\$(\w*)(?:%0(\d{1,2})d)?\$/g, (whole, name: string, width: string | undefined) => {
    if (name === '') return '$';
    const value = values[name];
    if (value === undefined) return whole;
    return width === undefined ? value : value.padStart(Number(width), '0');
  });
}

/**
 * An xs:duration (`PT1H2M3.5S`, `P1DT2H`) in seconds; undefined when it is none. Years and months, which have no fixed
 * length, count 365 and 30 days (no MPD found uses them).
 */
export function isoSeconds(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const match = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(
    text.trim(),
  );
  if (match === null || text.trim() === 'P' || text.trim().endsWith('T')) return undefined;
  const [, y, mo, d, h, mi, s] = match.map((part) => Number(part ?? 0));
  return ((((y ?? 0) * 365 + (mo ?? 0) * 30 + (d ?? 0)) * 24 + (h ?? 0)) * 60 + (mi ?? 0)) * 60 + (s ?? 0);
}

function positive(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && Number.isFinite(value) && value > 0 ? value : undefined;
}

function whole(text: string | undefined): number | undefined {
  const value = Number(text);
  return text !== undefined && /^\d{1,15}$/.test(text.trim()) ? value : undefined;
}
