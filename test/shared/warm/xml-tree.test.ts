import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childNamed, childrenNamed, parseXml, type XmlElement } from '../../../shared/warm/xml-tree.ts';

function root(text: string): XmlElement {
  const parsed = parseXml(text, 1000);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

describe('parseXml', () => {
  it('reads elements, attributes in either quote, text, and drops namespace prefixes', () => {
    const doc = root(
      `<?xml version="1.0"?><!-- a comment --><mpd:MPD xmlns:mpd="urn:x" a='1' b="x>y"><BaseURL> http://a/ </BaseURL><P/><P c="2"></P></mpd:MPD>`,
    );
    expect(doc.name).toBe('MPD');
    expect(doc.attributes.get('a')).toBe('1');
    expect(doc.attributes.get('b')).toBe('x>y');
    expect(childNamed(doc, 'BaseURL')?.text).toBe(' http://a/ ');
    expect(childrenNamed(doc, 'P').map((p) => p.attributes.get('c'))).toEqual([undefined, '2']);
  });

  it('expands only the predefined entities and character references (XML 1.0 §4.1, §4.6)', () => {
    const doc = root('<a v="&amp;&lt;&#65;&#x42;&unknown;">x&gt;y<![CDATA[<raw>&amp;]]></a>');
    expect(doc.attributes.get('v')).toBe('&<AB&unknown;');
    expect(doc.text).toBe('x>y<raw>&amp;');
  });

  it('skips a DOCTYPE and its internal subset, never expanding what it declares', () => {
    const doc = root('<!DOCTYPE a [<!ENTITY e "boom">]><a>&e;</a>');
    expect(doc.text).toBe('&e;');
  });

  it('refuses what is not well nested, left open, empty or too long', () => {
    expect(parseXml('<a><b></a>', 10)).toEqual({ error: 'the XML closes </a>, which is not open' });
    expect(parseXml('<a><b>', 10)).toEqual({ error: 'the XML leaves <b> open' });
    expect(parseXml('<a', 10)).toEqual({ error: 'the XML has a tag left open' });
    expect(parseXml('<!-- never closed', 10)).toHaveProperty('error');
    expect(parseXml('just text', 10)).toEqual({ error: 'the XML has no element' });
    expect(parseXml('<a><b/><b/><b/></a>', 3)).toEqual({ error: 'the XML has more than 3 elements' });
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('<', '>', '/', '"', "'", '=', '!', '-', '?', '&', ';', '#', 'a', ' ', '[', ']'),
        }),
        (text) => {
          const parsed = parseXml(text, 100);
          return 'error' in parsed || typeof parsed.name === 'string';
        },
      ),
    );
  });
});
