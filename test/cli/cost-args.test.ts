import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCostArgs, parseRatio, parseSize } from '../../cli/cost-args.ts';
import { EXAMPLE_MIXES } from '../../shared/cost/traffic-mix.ts';

const UNITS: [string, number][] = [
  ['', 1],
  ['B', 1],
  ['kB', 1e3],
  ['MB', 1e6],
  ['GB', 1e9],
  ['TB', 1e12],
  ['PB', 1e15],
  ['KiB', 1024],
  ['MiB', 1024 ** 2],
  ['GiB', 1024 ** 3],
  ['TiB', 1024 ** 4],
];

describe('parseSize', () => {
  it('reads a whole or decimal number with an SI or IEC unit, in any case, a space allowed between', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999 }),
        fc.constantFrom(...UNITS),
        fc.boolean(),
        fc.boolean(),
        (number, [unit, factor], space, upper) => {
          const text = `${number}${space && unit !== '' ? ' ' : ''}${upper ? unit.toUpperCase() : unit.toLowerCase()}`;
          expect(parseSize(text)).toBe(number * factor);
        },
      ),
    );
    expect(parseSize('1.5GB')).toBe(1.5e9);
    expect(parseSize('16MiB')).toBe(16 * 1024 * 1024);
  });

  it('is undefined for anything else', () => {
    for (const text of ['', 'TB', '-1TB', '1 TiBs', '1e12', '1,000', '10 furlongs', '0x10', '1..5MB', 'NaN'])
      expect(parseSize(text), text).toBeUndefined();
    fc.assert(
      fc.property(fc.string(), (text) => {
        const size = parseSize(text);
        expect(size === undefined || (Number.isFinite(size) && size >= 0)).toBe(true);
      }),
    );
  });
});

describe('parseRatio', () => {
  it('is a number from 0 to 1, else undefined', () => {
    expect([parseRatio('0'), parseRatio('0.95'), parseRatio('1')]).toEqual([0, 0.95, 1]);
    for (const text of ['1.01', '-0.1', '95%', '', 'half']) expect(parseRatio(text), text).toBeUndefined();
  });
});

describe('parseCostArgs', () => {
  it('without flags is the 10 TB example, with the allowances, as text', () => {
    const args = parseCostArgs([]);
    expect({ ...args.mix, name: '' }).toEqual({ ...EXAMPLE_MIXES[1], name: '' });
    expect([args.allowances, args.examples, args.format, args.egressPricePerTB]).toEqual([
      true,
      false,
      'text',
      undefined,
    ]);
  });
});
