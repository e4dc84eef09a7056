// The URIs a DASH manifest names (ISO/IEC 23009-1, the MPD): BaseURL and Location text, SegmentTemplate's media,
// initialization, index and bitstreamSwitching, SegmentURL's media and index, and the sourceURL of Initialization,
// RepresentationIndex and BitstreamSwitching; each with the BaseURL chain it resolves against (§5.6.4). Read by the
// one XML reader (xml-scan.ts), which keeps every byte where it was: spans of the text, nothing rebuilt. Pure.

import type { NamedUri } from './named-uri.ts';
import { type ScannedElement, scanXml, type XmlValue } from './xml-scan.ts';

/** What a manifest names, and the Representation ids its SegmentTemplates may substitute (§5.3.9.4.4). */
export interface DashUris {
  uris: NamedUri[];
  representationIds: string[];
}

/** The attributes that hold a URI, by element (local name); `true`: a SegmentTemplate's, with identifiers. */
const URI_ATTRIBUTES: Readonly<Record<string, Readonly<Record<string, boolean>>>> = {
  SegmentTemplate: { media: true, initialization: true, index: true, bitstreamSwitching: true },
  SegmentURL: { media: false, index: false },
  Initialization: { sourceURL: false },
  RepresentationIndex: { sourceURL: false },
  BitstreamSwitching: { sourceURL: false },
};
/** Elements whose text is a URI: BaseURL (§5.6), and where a dynamic manifest is fetched again (§5.3.1.2). */
const URI_TEXT = new Set(['BaseURL', 'Location', 'PatchLocation']);
/** The root element, after an XML declaration, comments and white space (XML 1.0 §2.8). */
const MPD_ROOT = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:[A-Za-z_][\w.-]*:)?MPD[\s>/]/;

/** An element's text, when it has nothing but text: where it is, trimmed, and what it says. */
interface Text {
  start: number;
  end: number;
  value: string;
}

/** Whether `text` is a DASH manifest: its root element is MPD. */
export function isDashManifest(text: string): boolean {
  return MPD_ROOT.test(text);
}

/**
 * The URIs the manifest names, in order, each with the BaseURL chain above it; none when it does not read as XML (a
 * tag left open, an end tag that closes another, a DOCTYPE with declarations of its own): then nothing is changed.
 */
export function dashUris(text: string): DashUris {
  const scanned = scanXml(text);
  if ('error' in scanned || scanned.internalSubset) return { uris: [], representationIds: [] };
  const { elements } = scanned;
  const texts = elements.map((element) => (URI_TEXT.has(element.name) ? plainText(text, element.content) : undefined));
  const levels = baseLevels(elements, texts);
  const uris: NamedUri[] = [];
  const representationIds: string[] = [];
  elements.forEach((element, index) => {
    for (const { name, start, end, value, plain } of element.attributes) {
      if (element.name === 'Representation' && name === 'id') representationIds.push(plain ? value : '');
      const template = URI_ATTRIBUTES[element.name]?.[name];
      if (template === undefined || !plain || value.trim() === '') continue;
      const bases = chain(elements, levels, index);
      if (bases !== undefined) uris.push({ start, end, uri: value, bases, template, xml: true });
    }
    const own = texts[index];
    if (own !== undefined && own.value !== '') {
      // A BaseURL resolves against those above its parent's (§5.6.4): its own level is what it makes.
      const bases = element.parent === undefined ? [] : chain(elements, levels, element.parent, false);
      const { start, end, value } = own;
      if (bases !== undefined) uris.push({ start, end, uri: value, bases, template: false, xml: true });
    }
  });
  return { uris, representationIds };
}

/**
 * An element's content as a URI: trimmed (§5.6: a BaseURL is an anyURI, XML Schema collapses its spaces); undefined
 * unless it is written plainly (markup in it, a CDATA section or a comment, or a character reference: its URI is left
 * as it is).
 */
function plainText(text: string, content: XmlValue | undefined): Text | undefined {
  if (content === undefined || !content.plain) return undefined;
  const raw = text.slice(content.start, content.end);
  const start = content.start + raw.length - raw.trimStart().length;
  return { start, end: start + raw.trim().length, value: content.value.trim() };
}

/** Each element's BaseURL alternatives (its BaseURL children's text), or null when one of them cannot be read. */
function baseLevels(elements: readonly ScannedElement[], texts: readonly (Text | undefined)[]): (string[] | null)[] {
  const levels: (string[] | null)[] = elements.map(() => []);
  elements.forEach((element, index) => {
    if (element.name !== 'BaseURL' || element.parent === undefined) return;
    const value = texts[index]?.value;
    const level = levels[element.parent];
    if (value === undefined || value === '' || level === null || level === undefined) levels[element.parent] = null;
    else level.push(value);
  });
  return levels;
}

/**
 * The BaseURL levels above element `index`, outermost first (`own`: its own level too); undefined when one of them
 * cannot be read, so that nothing below it is judged.
 */
function chain(
  elements: readonly ScannedElement[],
  levels: readonly (string[] | null)[],
  index: number,
  own = true,
): string[][] | undefined {
  const found: string[][] = [];
  for (let at: number | undefined = own ? index : elements[index]?.parent; at !== undefined; ) {
    const level = levels[at];
    if (level === null || level === undefined) return undefined;
    if (level.length > 0) found.unshift(level);
    at = elements[at]?.parent;
  }
  return found;
}
