// npm run sim's flags (bench/sim/sim-flags.ts): the defaults the run is sized by, each flag read, and a
// wrong one refused with what was expected.
import { describe, expect, it } from 'vitest';
import { parseSimFlags, SYSTEM_ORDER } from '../../bench/sim/sim-flags.ts';

describe('npm run sim flags', () => {
  it('defaults to the four systems in order, 3 minutes at 4×, KV at 60 s, one isolate', () => {
    expect(parseSimFlags([])).toMatchObject({
      locations: undefined,
      minutes: 3,
      speed: 4,
      systems: [...SYSTEM_ORDER],
      kvDelayMs: 60_000,
      isolates: 1,
      traceOnly: false,
      slowEndpoint: false,
      crowd: true,
    });
  });

  it('runs tiercache with its hedge off, then on, for --slow-endpoint, unless --systems names others', () => {
    expect(parseSimFlags(['--slow-endpoint'])).toMatchObject({
      slowEndpoint: true,
      systems: ['tiercache-no-hedge', 'tiercache'],
      crowd: false,
    });
    expect(parseSimFlags(['--no-crowd'])).toMatchObject({ slowEndpoint: false, crowd: false });
    expect(parseSimFlags(['--systems', 'tiercache', '--slow-endpoint']).systems).toEqual(['tiercache']);
    expect(parseSimFlags(['--systems', 'tiercache-no-hedge']).systems).toEqual(['tiercache-no-hedge']);
  });

  it('runs tiercache with segment prefetching off, then on, on mostly HLS viewers for --hls, unless --systems names others', () => {
    expect(parseSimFlags(['--hls'])).toMatchObject({
      hls: true,
      systems: ['tiercache-no-prefetch', 'tiercache'],
      crowd: false,
    });
    expect(parseSimFlags([])).toMatchObject({ hls: false });
    expect(parseSimFlags(['--hls', '--systems', 'tiercache']).systems).toEqual(['tiercache']);
    expect(parseSimFlags(['--systems', 'tiercache-no-prefetch']).systems).toEqual(['tiercache-no-prefetch']);
  });

  it('runs tiercache on small caches without its R2 tier, with it, and keeping all, for --r2-tier, no crowd', () => {
    expect(parseSimFlags(['--r2-tier'])).toMatchObject({
      r2Tier: true,
      systems: ['tiercache-no-r2', 'tiercache', 'tiercache-r2-all'],
      crowd: false,
    });
    expect(parseSimFlags([])).toMatchObject({ r2Tier: false });
    expect(parseSimFlags(['--r2-tier', '--systems', 'tiercache']).systems).toEqual(['tiercache']);
    expect(parseSimFlags(['--systems', 'tiercache-no-r2']).systems).toEqual(['tiercache-no-r2']);
  });

  it('reads each flag, as `--flag value` or `--flag=value`', () => {
    expect(
      parseSimFlags([
        '--locations',
        '2',
        '--minutes=0.5',
        '--alpha',
        '0.6',
        '--systems',
        'tiercache,varnish',
        '--kv-delay-ms',
        '0',
        '--isolates',
        '4',
        '--trace',
        't.trace',
      ]),
    ).toMatchObject({
      locations: 2,
      minutes: 0.5,
      alpha: 0.6,
      systems: ['tiercache', 'varnish'],
      kvDelayMs: 0,
      isolates: 4,
      trace: 't.trace',
    });
  });

  it('refuses what it cannot run, saying what it expected', () => {
    expect(() => parseSimFlags(['--systems', 'squid'])).toThrow(/--systems takes tiercache, no-shield/);
    expect(() => parseSimFlags(['--locations', '1.5'])).toThrow(/whole number/);
    expect(() => parseSimFlags(['--speed', '0'])).toThrow(/above 0/);
    expect(() => parseSimFlags(['--minutes'])).toThrow(/needs a value/);
    expect(() => parseSimFlags(['--trace', 'a', '--from-log', 'b'])).toThrow(/give one/);
    expect(() => parseSimFlags(['--trace-only'])).toThrow(/--write-trace/);
    expect(() => parseSimFlags(['--fast'])).toThrow(/unknown flag --fast/);
  });
});
