import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ScannedElement, scanXml, type XmlScan } from '../../../shared/playlists/xml-scan.ts';

function scanned(text: string, maxElements?: number): XmlScan {
  const scan = scanXml(text, maxElements);
  if ('error' in scan) throw new Error(scan.error);
  return scan;
}

/** Each element as `name^parent`, its attributes `name=value` with what is written between their quotes. */
function outline(text: string): string[] {
  return scanned(text).elements.map((element) => {
    const attributes = element.attributes.map(
      ({ name, start, end, value, plain }) =>
        ` ${name}=${JSON.stringify(value)}${plain ? '' : '!'} [${text.slice(start, end)}]`,
    );
    return `${element.name}^${element.parent ?? '-'}${attributes.join('')}`;
  });
}

describe('scanXml', () => {
  it('gives each element in document order: its local name, its parent, its attributes where they are written', () => {
    const text = `<?xml version="1.0"?><!-- a comment --><mpd:MPD xmlns:mpd="urn:x" a='1' b="x>y"><P/><P c="2"></P></mpd:MPD>`;
    expect(outline(text)).toEqual(['MPD^- mpd="urn:x" [urn:x] a="1" [1] b="x>y" [x>y]', 'P^0', 'P^0 c="2" [2]']);
  });

  it('reads XML’s five entities plainly; a character reference is read but not plain, another entity is left as written (XML 1.0 §4.1, §4.6)', () => {
    const text = `<a five="&lt;&gt;&amp;&quot;&apos;" ref="&#65;&#x42;" other="&nbsp;" bare="a&b" big="&#x110000;"/>`;
    expect(outline(text)).toEqual([
      `a^- five="<>&\\"'" [&lt;&gt;&amp;&quot;&apos;] ref="AB"! [&#65;&#x42;] other="&nbsp;"! [&nbsp;] bare="a&b"! [a&b] big="&#x110000;"! [&#x110000;]`,
    ]);
  });

  it('gives an element’s content: where it is between its tags, its own text with CDATA’s as written, and whether it is text alone', () => {
    const text =
      '<r><u> http://a/&amp;b </u><c>x<![CDATA[<raw>&amp;]]>y</c><k>a<!-- z -->b</k><p>a<?pi?>b</p><n>x<e/>y</n><e/><o></o></r>';
    const content = scanned(text).elements.map(({ name, content }) =>
      content === undefined
        ? `${name}: none`
        : `${name}: [${text.slice(content.start, content.end)}] ${JSON.stringify(content.value)}${content.plain ? '' : '!'}`,
    );
    expect(content.slice(1)).toEqual([
      'u: [ http://a/&amp;b ] " http://a/&b "',
      'c: [x<![CDATA[<raw>&amp;]]>y] "x<raw>&amp;y"!',
      'k: [a<!-- z -->b] "ab"!',
      'p: [a<?pi?>b] "ab"!',
      'n: [x<e/>y] "xy"!',
      'e: none',
      'e: none',
      'o: [] ""',
    ]);
  });

  it('never names what a comment, CDATA section or processing instruction holds', () => {
    expect(outline('<a><!-- <b/> --><![CDATA[<c/>]]><?pi <d/> ?><e/></a>')).toEqual(['a^-', 'e^0']);
  });

  it('skips a DOCTYPE and says whether it has an internal subset, never expanding what it declares (§2.8)', () => {
    const subset = scanned('<!DOCTYPE a [<!ENTITY e "boom">]><a v="&e;">&e;</a>');
    expect(subset.internalSubset).toBe(true);
    expect(subset.elements[0]?.attributes[0]).toMatchObject({ value: '&e;', plain: false });
    expect(subset.elements[0]?.content).toMatchObject({ value: '&e;', plain: false });
    expect(scanned('<!DOCTYPE a SYSTEM "a.dtd"><a/>').internalSubset).toBe(false);
  });

  it('refuses what is not well-formed: a tag left open or that does not parse, crossed or unopened end tags (§3)', () => {
    const refusals: [string, string][] = [
      ['<a><b></a>', 'the XML closes </a>, which is not open'],
      ['</a>', 'the XML closes </a>, which is not open'],
      ['<x:a></y:a>', 'the XML closes </y:a>, which is not open'],
      ['<a></a b>', 'the XML closes </a b>, which is not open'],
      ['<a><b>', 'the XML leaves <b> open'],
      ['<a', 'the XML has a tag left open'],
      ['<a b="x>', 'the XML has a tag left open'],
      ['<a b>', 'the XML has a tag that does not parse at character 0 (expected <name attribute="value" …>)'],
      ['<a>< b/></a>', 'the XML has a tag that does not parse at character 3 (expected <name attribute="value" …>)'],
      ['<a/ >', 'the XML has a tag that does not parse at character 0 (expected <name attribute="value" …>)'],
      ['<!-- never closed', 'the XML has a comment, CDATA section or declaration left open'],
      ['<!DOCTYPE a [<!ENTITY e "x">', 'the XML has a comment, CDATA section or declaration left open'],
    ];
    for (const [text, error] of refusals) expect(scanXml(text), text).toEqual({ error });
  });

  it('refuses more than its number of elements', () => {
    expect(scanXml('<a><b/><b/><b/></a>', 3)).toEqual({ error: 'the XML has more than 3 elements' });
    expect(scanned('<a><b/><b/></a>', 3).elements).toHaveLength(3);
  });

  it('never throws, and every span it gives lies in the text', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('<', '>', '/', '"', "'", '=', '!', '-', '?', '&', ';', '#', 'a', ':', ' ', '[', ']'),
        }),
        (text) => {
          const scan = scanXml(text, 100);
          if ('error' in scan) return true;
          const spans = scan.elements.flatMap((element) => [
            ...element.attributes,
            element.content ?? { start: 0, end: 0 },
          ]);
          return spans.every(({ start, end }) => 0 <= start && start <= end && end <= text.length);
        },
      ),
    );
  });
});

/** A document to write: elements, attributes and text, each value said plainly or with character references. */
interface Node {
  name: string;
  attributes: { name: string; value: string; references: boolean }[];
  parts: (Node | { text: string; references: boolean } | { cdata: string } | { comment: string })[];
  empty: boolean;
}

const character = fc.constantFrom('a', 'é', ' ', '<', '>', '&', '"', "'", '/', '=', '?', '#', ';', ':', '\u{1F600}');
const value = fc.string({ unit: character, maxLength: 6 });
const FIVE: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' };
const written = (text: string, references: boolean): string =>
  [...text].map((c) => (references ? `&#${c.codePointAt(0)};` : (FIVE[c] ?? c))).join('');
const node: fc.Memo<Node> = fc.memo((depth) =>
  fc.record({
    name: fc.constantFrom('MPD', 'Period', 'mpd:BaseURL', 'SegmentURL', 'É-x.1'),
    attributes: fc.uniqueArray(
      fc.record({ name: fc.constantFrom('id', 'media', 'x:href', 'a.b'), value, references: fc.boolean() }),
      { selector: (attribute) => attribute.name.replace(/^.*:/, ''), maxLength: 3 },
    ),
    parts: fc.array(
      fc.oneof(
        fc.record({ text: value, references: fc.boolean() }),
        fc.record({ cdata: fc.string({ unit: fc.constantFrom('a', '<', '&', '>'), maxLength: 4 }) }),
        fc.record({ comment: fc.constantFrom('', ' <a b="c"/> ') }),
        ...(depth > 1 ? [node(depth - 1)] : []),
      ),
      { maxLength: 4 },
    ),
    empty: fc.boolean(),
  }),
);

function write(element: Node): string {
  const attributes = element.attributes.map(
    ({ name, value, references }) => ` ${name}="${written(value, references)}"`,
  );
  if (element.empty && element.parts.length === 0) return `<${element.name}${attributes.join('')}/>`;
  return `<${element.name}${attributes.join('')}>${element.parts.map(writePart).join('')}</${element.name}>`;
}

function writePart(part: Node['parts'][number]): string {
  if ('cdata' in part) return `<![CDATA[${part.cdata}]]>`;
  if ('comment' in part) return `<!--${part.comment}-->`;
  return 'text' in part ? written(part.text, part.references) : write(part);
}

/** The elements of `root` in document order, each with the index of its parent. */
function preorder(root: Node): { node: Node; parent: number | undefined }[] {
  const found: { node: Node; parent: number | undefined }[] = [];
  const visit = (node: Node, parent: number | undefined): void => {
    const index = found.push({ node, parent }) - 1;
    for (const part of node.parts) if ('name' in part) visit(part, index);
  };
  visit(root, undefined);
  return found;
}

/** That `element`, scanned from `text`, is `node` as written: names, values, spans, and which are plain. */
function expectRead(text: string, element: ScannedElement | undefined, node: Node, parent: number | undefined): void {
  const local = (name: string): string => name.replace(/^.*:/, '');
  expect(element).toMatchObject({ name: local(node.name), parent });
  expect(element?.attributes).toHaveLength(node.attributes.length);
  node.attributes.forEach(({ name, value, references }, i) => {
    const attribute = element?.attributes[i];
    expect(attribute).toMatchObject({ name: local(name), value, plain: !references || value === '' });
    expect(text.slice(attribute?.start, attribute?.end)).toBe(written(value, references));
  });
  const { content } = element ?? {};
  if (node.empty && node.parts.length === 0) {
    expect(content).toBeUndefined();
    return;
  }
  const own = node.parts.map((part) => ('text' in part ? part.text : 'cdata' in part ? part.cdata : '')).join('');
  const markup = node.parts.some((part) => !('text' in part));
  const references = node.parts.some((part) => 'text' in part && part.references && part.text !== '');
  expect(content).toMatchObject({ value: own, plain: !markup && !references });
  expect(text.slice(content?.start, content?.end)).toBe(node.parts.map(writePart).join(''));
}

describe('scanXml, as properties of any well-formed document', () => {
  it('reads back every element, attribute and text where it is written, and says which are written plainly', () => {
    fc.assert(
      fc.property(node(3), fc.constantFrom('', '<?xml version="1.0"?>\n<!-- made -->'), (root, prolog) => {
        const text = prolog + write(root);
        const { elements, internalSubset } = scanned(text);
        const nodes = preorder(root);
        expect(elements).toHaveLength(nodes.length);
        expect(internalSubset).toBe(false);
        for (const [index, { node, parent }] of nodes.entries()) expectRead(text, elements[index], node, parent);
      }),
    );
  });
});
