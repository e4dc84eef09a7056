// The little of XML a DASH manifest needs read (dash-uris.ts): elements with their attributes, children and text,
// namespace prefixes dropped. No DTD is read and no entity but XML's five and character references is expanded
// (XML 1.0 §4.6, §4.1), so no document can make it expand into more than its own size.

/** An element: its local name, its attributes by local name, its children and its own text, in order. */
export interface XmlElement {
  name: string;
  attributes: ReadonlyMap<string, string>;
  children: XmlElement[];
  text: string;
}

/** XML 1.0 §4.6: the entities every processor knows. */
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** XML 1.0 §2.3: a name (loosely: what stops one is what matters here). */
const NAME = /^[^\s/>=]+/;

/**
 * The document's root element, or why there is none: a tag left open, one closed that was not open, more than
 * `maxElements` elements. Never throws.
 */
export function parseXml(text: string, maxElements: number): XmlElement | { error: string } {
  const root: XmlElement = { name: '', attributes: new Map(), children: [], text: '' };
  const open: XmlElement[] = [root];
  let count = 0;
  let at = 0;
  while (at < text.length) {
    const lt = text.indexOf('<', at);
    const current = open[open.length - 1] ?? root;
    current.text += decode(text.slice(at, lt < 0 ? undefined : lt));
    if (lt < 0) break;
    const skipped = skipMarkup(text, lt, current);
    if (skipped !== undefined) {
      if (skipped < 0) return { error: 'the XML has a comment, CDATA section or declaration left open' };
      at = skipped;
      continue;
    }
    const gt = tagEnd(text, lt);
    if (gt < 0) return { error: 'the XML has a tag left open' };
    const tag = text.slice(lt + 1, gt);
    at = gt + 1;
    if (tag.startsWith('/')) {
      const name = localName(tag.slice(1).trim());
      if (open.length < 2 || current.name !== name) return { error: `the XML closes </${name}>, which is not open` };
      open.pop();
      continue;
    }
    if (++count > maxElements) return { error: `the XML has more than ${maxElements} elements` };
    const element = openTag(tag);
    current.children.push(element);
    if (!tag.endsWith('/')) open.push(element);
  }
  if (open.length > 1) return { error: `the XML leaves <${open[open.length - 1]?.name}> open` };
  const [first] = root.children;
  return first ?? { error: 'the XML has no element' };
}

/** The children of `element` named `name`. */
export function childrenNamed(element: XmlElement | undefined, name: string): XmlElement[] {
  return element === undefined ? [] : element.children.filter((child) => child.name === name);
}

/** The first child of `element` named `name`. */
export function childNamed(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((child) => child.name === name);
}

/**
 * Where reading goes on after a comment, processing instruction, CDATA section (its text kept) or declaration starting
 * at `lt`; -1 when it is never closed; undefined when `lt` starts a tag.
 */
function skipMarkup(text: string, lt: number, current: XmlElement): number | undefined {
  const ahead = text.slice(lt, lt + 9);
  const closeAfter = (close: string, from: number): number => {
    const end = text.indexOf(close, from);
    return end < 0 ? -1 : end + close.length;
  };
  if (ahead.startsWith('<!--')) return closeAfter('-->', lt + 4);
  if (ahead.startsWith('<?')) return closeAfter('?>', lt + 2);
  if (ahead === '<![CDATA[') {
    const end = closeAfter(']]>', lt + 9);
    if (end > 0) current.text += text.slice(lt + 9, end - 3);
    return end;
  }
  // A DOCTYPE: skipped whole, its internal subset too (never read).
  if (ahead.startsWith('<!')) {
    const bracket = text.indexOf('[', lt);
    const gt = text.indexOf('>', lt);
    return bracket >= 0 && bracket < gt ? closeAfter(']>', bracket) : gt < 0 ? -1 : gt + 1;
  }
  return undefined;
}

/** The `>` closing the tag at `lt`, past any quoted attribute value holding one. */
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

function openTag(tag: string): XmlElement {
  const name = localName(NAME.exec(tag)?.[0] ?? '');
  const attributes = new Map<string, string>();
  for (const match of tag.matchAll(/([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const key = localName(match[1] ?? '');
    if (!attributes.has(key)) attributes.set(key, decode(match[2] ?? match[3] ?? ''));
  }
  return { name, attributes, children: [], text: '' };
}

/** A name without its namespace prefix (`mpd:Period` is `Period`). */
function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** XML 1.0 §4.1, §4.6: character references and the predefined entities; anything else is left as written. */
function decode(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,4});/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[ref] ?? whole;
  });
}
