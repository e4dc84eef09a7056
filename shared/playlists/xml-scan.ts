// The one XML reader (XML 1.0, Namespaces in XML 1.0) of a DASH manifest, for both of its readers: the signed-playlist
// rewrite (dash-uris.ts), which changes a URI where it is written and so needs where each value is and whether its
// bytes say it plainly, and the warm API's tree (shared/warm/xml-tree.ts), which needs each value read. Every element
// in document order, with its local name, its parent, its attributes and its content. No DTD is read and no entity but
// XML's five and character references is expanded (§4.6, §4.1), so no document can make it expand into more than its
// own size. Pure.

/** A value as written and as read: an attribute's, or an element's content. */
export interface XmlValue {
  /** Where it is written: `text.slice(start, end)`, an attribute's between its quotes, an element's between its tags. */
  start: number;
  end: number;
  /**
   * What it says: XML's five entities and character references expanded, any other reference left as written; of an
   * element, its own text, CDATA sections' as written, its children's, comments and processing instructions left out.
   */
  value: string;
  /**
   * Whether its bytes are characters and XML's five entities alone (no character reference, other entity or bare `&`;
   * no child, comment, CDATA section or processing instruction): then they say `value` and nothing else, and what is
   * written in its place is read as written.
   */
  plain: boolean;
}

/** An attribute: its local name (Namespaces in XML §4: `xlink:href` is `href`) and its value. */
export interface XmlAttribute extends XmlValue {
  name: string;
}

/** An element: its local name, the index of its parent (none for a root), its attributes as written, in order. */
export interface ScannedElement {
  name: string;
  parent: number | undefined;
  attributes: readonly XmlAttribute[];
  /** What lies between its start and end tags; none for an empty-element tag (`<BaseURL/>`, §3.1). */
  content: XmlValue | undefined;
}

/** A document read: its elements in document order. */
export interface XmlScan {
  elements: ScannedElement[];
  /**
   * Whether a DOCTYPE holds an internal subset (`<!DOCTYPE MPD [ … ]>`, §2.8): it is skipped, never read, so the
   * entities it declares stay as written; a reader that must know what every value says refuses such a document.
   */
  internalSubset: boolean;
}

/** An element still open: where its content starts, and its text so far. */
interface Open {
  index: number;
  qname: string;
  start: number;
  text: string[];
  plain: boolean;
}

/** A document being read: what is read so far, the elements still open, the names met (each kept once). */
interface Reading {
  text: string;
  maxElements: number;
  scan: XmlScan;
  open: Open[];
  names: Map<string, string>;
}

/** XML 1.0 §4.6: the entities every processor knows. */
const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
/** A reference (§4.1): a character reference or an entity's; a bare `&` matches too, with no name. */
const REFERENCE = /&(?:(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,4});)?/gi;
/** §2.3's NameStartChar but the colon (Namespaces in XML §3: an NCName), and the NameChar it may go on with. */
const NAME_START = String.raw`A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}`;
const NCNAME = String.raw`[${NAME_START}][${NAME_START}.0-9\u00B7\u0300-\u036F\u203F\u2040\-]*`;
/** A qualified name: an optional prefix, then the local name (captured). */
const QNAME = `(?:${NCNAME}:)?(${NCNAME})`;
const TAG_NAME = new RegExp(QNAME, 'uy');
/** §3.1: an attribute, `name="value"` in either quotes (which may hold `>`). */
const ATTRIBUTE = new RegExp(String.raw`[ \t\r\n]*${QNAME}[ \t\r\n]*=[ \t\r\n]*(?:"([^"]*)"|'([^']*)')`, 'uy');
/** §3.1: the end of a start tag, `/` before the `>` of an empty-element tag. */
const TAG_CLOSE = /[ \t\r\n]*(\/?)>/y;
const LEFT_OPEN = 'the XML has a tag left open';
const NO_ATTRIBUTES: readonly XmlAttribute[] = [];

/**
 * The document's elements, or why it is not read: a tag left open or that does not parse, an end tag that closes
 * another element, a comment, CDATA section or declaration never closed, more than `maxElements` elements. The
 * scanner knows comments, CDATA sections, processing instructions and DOCTYPE (its internal subset skipped), and
 * quoted attribute values (which may hold `>`): it finds every tag where an XML parser would. Never throws.
 */
export function scanXml(text: string, maxElements = Number.POSITIVE_INFINITY): XmlScan | { error: string } {
  const reading: Reading = {
    text,
    maxElements,
    scan: { elements: [], internalSubset: false },
    open: [],
    names: new Map(),
  };
  for (let at = 0; at < text.length; ) {
    const lt = text.indexOf('<', at);
    const current = reading.open.at(-1);
    const textEnd = lt < 0 ? text.length : lt;
    if (current !== undefined && textEnd > at) addText(current, text.slice(at, textEnd));
    if (lt < 0) break;
    const next = text[lt + 1] === '/' ? endTag(reading, lt) : (markup(reading, lt) ?? startTag(reading, lt));
    if (typeof next !== 'number') return next;
    at = next;
  }
  const left = reading.open.at(-1);
  return left === undefined ? reading.scan : { error: `the XML leaves <${left.qname}> open` };
}

/**
 * Past a comment, processing instruction, CDATA section (its text kept) or declaration starting at `lt`; undefined
 * when `lt` starts a tag.
 */
function markup({ text, open, scan }: Reading, lt: number): number | { error: string } | undefined {
  const current = open.at(-1);
  const after = (close: string, from: number): number => {
    const end = text.indexOf(close, from);
    return end < 0 ? -1 : end + close.length;
  };
  let end: number;
  if (text.startsWith('<!--', lt)) end = after('-->', lt + 4);
  else if (text.startsWith('<?', lt)) end = after('?>', lt + 2);
  else if (text.startsWith('<![CDATA[', lt)) {
    end = after(']]>', lt + 9);
    if (end >= 0) current?.text.push(text.slice(lt + 9, end - 3));
  } else if (text.startsWith('<!', lt)) {
    // A DOCTYPE: skipped whole, its internal subset too (never read). A `[` is looked for before its `>` alone, so
    // that many declarations cost one reading of the text, not one each.
    const gt = text.indexOf('>', lt);
    const bracket = gt < 0 ? -1 : text.slice(lt, gt).indexOf('[');
    scan.internalSubset ||= bracket >= 0;
    end = bracket >= 0 ? after(']>', lt + bracket) : gt < 0 ? -1 : gt + 1;
  } else return undefined;
  if (end < 0) return { error: 'the XML has a comment, CDATA section or declaration left open' };
  if (current !== undefined) current.plain = false;
  return end;
}

/** The start tag at `lt` read into an element, opened unless it is empty; where reading goes on. */
function startTag(reading: Reading, lt: number): number | { error: string } {
  const { text, open, scan, maxElements } = reading;
  TAG_NAME.lastIndex = lt + 1;
  const head = TAG_NAME.exec(text);
  if (head === null) return unparsed(text, lt);
  const attributes: XmlAttribute[] = [];
  let at = TAG_NAME.lastIndex;
  for (let read = attribute(reading, at); read !== undefined; read = attribute(reading, at)) {
    attributes.push(read.attribute);
    at = read.end;
  }
  TAG_CLOSE.lastIndex = at;
  const close = TAG_CLOSE.exec(text);
  if (close === null) return unparsed(text, lt);
  if (scan.elements.length >= maxElements) return { error: `the XML has more than ${maxElements} elements` };
  const parent = open.at(-1);
  if (parent !== undefined) parent.plain = false;
  scan.elements.push({
    name: once(reading, head[1] ?? ''),
    parent: parent?.index,
    // Held for every element of a long SegmentList: no room kept for more.
    attributes: attributes.length === 0 ? NO_ATTRIBUTES : attributes.slice(),
    content: undefined,
  });
  const end = TAG_CLOSE.lastIndex;
  if (close[1] === '')
    open.push({ index: scan.elements.length - 1, qname: head[0], start: end, text: [], plain: true });
  return end;
}

/** Why the tag at `lt` is not read: it is never closed, or it is not `<name attribute="value" …>`. */
function unparsed(text: string, lt: number): { error: string } {
  if (tagEnd(text, lt) < 0) return { error: LEFT_OPEN };
  return { error: `the XML has a tag that does not parse at character ${lt} (expected <name attribute="value" …>)` };
}

/** The attribute at `at`, and where it ends; undefined when none starts there. */
function attribute(reading: Reading, at: number): { attribute: XmlAttribute; end: number } | undefined {
  ATTRIBUTE.lastIndex = at;
  const match = ATTRIBUTE.exec(reading.text);
  if (match === null) return undefined;
  const raw = match[2] ?? match[3] ?? '';
  const end = ATTRIBUTE.lastIndex;
  const start = end - raw.length - 1;
  const { value, plain } = unescaped(raw);
  return { attribute: { name: once(reading, match[1] ?? ''), start, end: start + raw.length, value, plain }, end };
}

/** `name`, as met first: a long manifest names a few elements and attributes many times over. */
function once({ names }: Reading, name: string): string {
  const known = names.get(name);
  if (known !== undefined) return known;
  names.set(name, name);
  return name;
}

/** The end tag at `lt`, which closes the element open last (§3: its name is the start tag's); where reading goes on. */
function endTag({ text, open, scan }: Reading, lt: number): number | { error: string } {
  const gt = tagEnd(text, lt);
  if (gt < 0) return { error: LEFT_OPEN };
  const qname = text.slice(lt + 2, gt).replace(/[ \t\r\n]+$/, '');
  const closed = open.pop();
  const element = closed === undefined ? undefined : scan.elements[closed.index];
  if (closed?.qname !== qname || element === undefined)
    return { error: `the XML closes </${qname}>, which is not open` };
  element.content = { start: closed.start, end: lt, value: closed.text.join(''), plain: closed.plain };
  return gt + 1;
}

/** The `>` closing the tag at `lt`, past any quoted attribute value holding one; -1 when there is none. */
function tagEnd(text: string, lt: number): number {
  let quote: string | undefined;
  for (let i = lt + 1; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '>') return i;
  }
  return -1;
}

/** Character data (§2.4) added to the open element's text. */
function addText(open: Open, raw: string): void {
  const { value, plain } = unescaped(raw);
  open.text.push(value);
  if (!plain) open.plain = false;
}

/**
 * XML 1.0 §4.1, §4.6: character references and the five predefined entities expanded, anything else left as written;
 * plain when it held nothing but the five.
 */
function unescaped(raw: string): { value: string; plain: boolean } {
  if (!raw.includes('&')) return { value: raw, plain: true };
  let plain = true;
  const value = raw.replace(REFERENCE, (whole, ref: string | undefined) => {
    const char = ref === undefined ? undefined : ref.startsWith('#') ? character(ref) : ENTITIES[ref];
    if (char === undefined || ref?.startsWith('#')) plain = false;
    return char ?? whole;
  });
  return { value, plain };
}

/** A character reference's character (`#65`, `#x41`); undefined for none XML allows (§2.2: not 0, below 0x110000). */
function character(ref: string): string | undefined {
  const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}
