// The little of XML a DASH manifest needs read (dash-uris.ts), as a tree: elements with their attributes, children and
// text, namespace prefixes dropped. Built over the one XML reader (../playlists/xml-scan.ts), whose attributes it
// reads in place: no DTD is read (a DOCTYPE's internal subset is skipped) and no entity but XML's five and character
// references is expanded (XML 1.0 §4.6, §4.1), so no document can make it expand into more than its own size.

import { scanXml, type XmlAttribute } from '../playlists/xml-scan.ts';

/** An element: its local name, its attributes by local name, its children and its own text, in order. */
export interface XmlElement {
  name: string;
  attributes: Attributes;
  children: XmlElement[];
  text: string;
}

/**
 * An element's attributes by local name, read off the scanner's list: no map built per element, of which a long
 * SegmentList has hundreds of thousands. A name given twice (not well-formed, §3.1) is read as first given.
 */
class Attributes implements Iterable<[string, string]> {
  readonly #list: readonly XmlAttribute[];

  constructor(list: readonly XmlAttribute[]) {
    this.#list = list;
  }

  get(name: string): string | undefined {
    return this.#list.find((attribute) => attribute.name === name)?.value;
  }

  *[Symbol.iterator](): Generator<[string, string]> {
    for (const [index, { name, value }] of this.#list.entries())
      if (this.#list.findIndex((attribute) => attribute.name === name) === index) yield [name, value];
  }
}

/**
 * The document's root element, or why there is none: a tag left open or that does not parse, one closed that was not
 * open, more than `maxElements` elements. Never throws.
 */
export function parseXml(text: string, maxElements: number): XmlElement | { error: string } {
  const scanned = scanXml(text, maxElements);
  if ('error' in scanned) return scanned;
  const tree: XmlElement[] = [];
  for (const { name, parent, attributes, content } of scanned.elements) {
    const element: XmlElement = {
      name,
      attributes: new Attributes(attributes),
      children: [],
      text: content?.value ?? '',
    };
    tree.push(element);
    if (parent !== undefined) tree[parent]?.children.push(element);
  }
  return tree[0] ?? { error: 'the XML has no element' };
}

/** The children of `element` named `name`. */
export function childrenNamed(element: XmlElement | undefined, name: string): XmlElement[] {
  return element === undefined ? [] : element.children.filter((child) => child.name === name);
}

/** The first child of `element` named `name`. */
export function childNamed(element: XmlElement | undefined, name: string): XmlElement | undefined {
  return element?.children.find((child) => child.name === name);
}
