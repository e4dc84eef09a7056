// The URIs a DASH manifest names (ISO/IEC 23009-1, the MPD): BaseURL and Location text, SegmentTemplate's media,
// initialization, index and bitstreamSwitching, SegmentURL's media and index, and the sourceURL of Initialization,
// RepresentationIndex and BitstreamSwitching; each with the BaseURL chain it resolves against (§5.6.4). Read by a
// small XML scanner that keeps every byte where it was: spans of the text, nothing rebuilt. Pure.

import type { NamedUri } from './named-uri.ts';

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
/** A start or end tag's name: an optional namespace prefix, then the local name. */
const TAG_NAME = /\/?(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)/y;
const ATTRIBUTE = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/gy;
/** XML 1.0 §4.6: the predefined entities; a character reference (`&#38;`) or any other entity leaves a URI alone. */
const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

interface Element {
  name: string;
  parent: number | undefined;
  /** Its text, when it has nothing but text (BaseURL's): where it is, and unescaped. */
  text?: { start: number; end: number; value: string | undefined };
  attributes: { name: string; start: number; end: number }[];
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
  const elements = scan(text);
  if (elements === undefined) return { uris: [], representationIds: [] };
  const levels = baseLevels(elements);
  const uris: NamedUri[] = [];
  const representationIds: string[] = [];
  elements.forEach((element, index) => {
    for (const attribute of element.attributes) {
      const value = unescaped(text.slice(attribute.start, attribute.end));
      if (element.name === 'Representation' && attribute.name === 'id') representationIds.push(value ?? '');
      const template = URI_ATTRIBUTES[element.name]?.[attribute.name];
      if (template === undefined || value === undefined || value.trim() === '') continue;
      const bases = chain(elements, levels, index);
      if (bases !== undefined) uris.push({ ...attribute, uri: value, bases, template, xml: true });
    }
    if (URI_TEXT.has(element.name) && element.text?.value !== undefined && element.text.value !== '') {
      // A BaseURL resolves against those above its parent's (§5.6.4): its own level is what it makes.
      const bases = element.parent === undefined ? [] : chain(elements, levels, element.parent, false);
      const { start, end, value } = element.text;
      if (bases !== undefined) uris.push({ start, end, uri: value, bases, template: false, xml: true });
    }
  });
  return { uris, representationIds };
}

/**
 * Every element, with its parent, URI attributes' spans and text; undefined when the document does not scan. The
 * scanner knows comments, CDATA, processing instructions and DOCTYPE, and quoted attribute values (which may hold
 * `>`), enough to find every tag where an XML parser would.
 */
function scan(text: string): Element[] | undefined {
  const elements: Element[] = [];
  const open: number[] = [];
  let at = text.indexOf('<');
  while (at >= 0) {
    const skipped = skip(text, at);
    if (skipped === undefined) return undefined;
    if (skipped > at) {
      at = text.indexOf('<', skipped);
      continue;
    }
    TAG_NAME.lastIndex = at + 1;
    const name = TAG_NAME.exec(text)?.[1];
    if (name === undefined) return undefined;
    const nameEnd = TAG_NAME.lastIndex;
    if (text[at + 1] === '/') {
      const index = open.pop();
      const element = index === undefined ? undefined : elements[index];
      if (element?.name !== name) return undefined;
      const close = text.indexOf('>', at);
      if (close < 0) return undefined;
      if (element.text !== undefined) element.text = textSpan(text, element.text.start, at);
      at = text.indexOf('<', close);
      continue;
    }
    const element: Element = { name, parent: open.at(-1), attributes: [] };
    const end = attributes(text, nameEnd, element);
    if (end === undefined) return undefined;
    elements.push(element);
    const selfClosing = text[end - 1] === '/';
    if (!selfClosing) {
      open.push(elements.length - 1);
      // Text is kept only for a URI element; its end is found at its end tag.
      if (URI_TEXT.has(name)) element.text = { start: end + 1, end: end + 1, value: undefined };
    }
    at = text.indexOf('<', end);
  }
  return open.length === 0 ? elements : undefined;
}

/**
 * Past a comment, CDATA section, processing instruction or DOCTYPE starting at `at` (`at` itself for a tag);
 * undefined when one is never closed or a DOCTYPE declares entities (they could change what a URI says).
 */
function skip(text: string, at: number): number | undefined {
  const closing = (marker: string, close: string): number | undefined => {
    const end = text.indexOf(close, at + marker.length);
    return end < 0 ? undefined : end + close.length;
  };
  if (text.startsWith('<!--', at)) return closing('<!--', '-->');
  if (text.startsWith('<![CDATA[', at)) return closing('<![CDATA[', ']]>');
  if (text.startsWith('<?', at)) return closing('<?', '?>');
  if (text.startsWith('<!', at)) {
    const end = text.indexOf('>', at);
    return end < 0 || text.slice(at, end).includes('[') ? undefined : end + 1;
  }
  return at;
}

/** Reads a start tag's attributes from `at`; the index of its `>`, or undefined when the tag does not parse. */
function attributes(text: string, at: number, element: Element): number | undefined {
  let position = at;
  for (;;) {
    while (/\s/.test(text[position] ?? '')) position++;
    const char = text[position];
    if (char === undefined) return undefined;
    if (char === '>') return position;
    if (char === '/' && text[position + 1] === '>') return position + 1;
    ATTRIBUTE.lastIndex = position;
    const match = ATTRIBUTE.exec(text);
    if (match === null) return undefined;
    const name = (match[1] ?? '').replace(/^.*:/, '');
    const quoted = match[2] ?? match[3] ?? '';
    const start = ATTRIBUTE.lastIndex - quoted.length - 1;
    element.attributes.push({ name, start, end: start + quoted.length });
    position = ATTRIBUTE.lastIndex;
  }
}

/** The text between `start` and `end`, trimmed (§5.6: a BaseURL is an anyURI, XML Schema collapses its spaces). */
function textSpan(text: string, start: number, end: number): Element['text'] {
  const raw = text.slice(start, end);
  const lead = raw.length - raw.trimStart().length;
  const trimmed = raw.trim();
  // Text with markup in it (a CDATA section, a comment) is not read: its URI is left as it is.
  const value = trimmed.includes('<') ? undefined : unescaped(trimmed);
  return { start: start + lead, end: start + lead + trimmed.length, value };
}

/** XML text or an attribute value unescaped; undefined when it holds a reference other than the five predefined. */
function unescaped(raw: string): string | undefined {
  if (raw.includes('&#')) return undefined;
  let known = true;
  const value = raw.replace(/&([^;&]*);?/g, (whole, name: string) => {
    const char = whole.endsWith(';') ? ENTITIES[name] : undefined;
    if (char === undefined) known = false;
    return char ?? whole;
  });
  return known ? value : undefined;
}

/** Each element's BaseURL alternatives (its BaseURL children's text), or null when one of them cannot be read. */
function baseLevels(elements: readonly Element[]): (string[] | null)[] {
  const levels: (string[] | null)[] = elements.map(() => []);
  for (const element of elements) {
    if (element.name !== 'BaseURL' || element.parent === undefined) continue;
    const value = element.text?.value;
    const level = levels[element.parent];
    if (value === undefined || value === '' || level === null || level === undefined) levels[element.parent] = null;
    else level.push(value);
  }
  return levels;
}

/**
 * The BaseURL levels above element `index`, outermost first (`own`: its own level too); undefined when one of them
 * cannot be read, so that nothing below it is judged.
 */
function chain(
  elements: readonly Element[],
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
