// The sim's baselines (bench/sim/systems/), each started on a small map (2 locations, short shaped links) in front of
// a fresh tiny deterministic origin: a whole GET and a Range at one location give the right bytes, the second
// location's reads of the same objects give them too, and each tier says in its Cache-Status member whether it hit.
// The two-tier baselines (Varnish, nginx slice) must serve the second location from the shield, never the origin
// again; the no-shield baseline must go to the origin again (that is what it stands for). Then a cold crowd (both
// locations ask a new object at once) and a cold seek (a range of a new object): what each asks the origin is what
// the system is documented to ask (bench/sim/systems/: Varnish the whole object once, nginx and tiercache each
// aligned slice once per shared cache). No timing is asserted.

import { describe, expect, it } from 'vitest';
import { detectNginx, detectVarnish } from '../../bench/setup/peers/detect.ts';
import type { SimSystem, StartSystem } from '../../bench/sim/system.ts';
import { startNginxSliceSystem, tiercacheSliceSize } from '../../bench/sim/systems/nginx-slice.ts';
import { startNoShieldSystem } from '../../bench/sim/systems/no-shield.ts';
import { varnishSystem } from '../../bench/sim/systems/varnish.ts';
import { defaultTopology } from '../../bench/sim/topology.ts';
import { objectBytes, type RangeOrigin, startRangeOrigin } from './range-origin.ts';

const MIB = 2 ** 20;
/** tiercache's slice size (8 MiB by default), which nginx slices at too. */
const SLICE = tiercacheSliceSize('http://127.0.0.1:1');
/** Sliced by tiercache and nginx: two slices, the second short. */
const LARGE = { path: '/video/large.bin', size: SLICE + 4 * MIB };
/** Below tiercache's slice threshold: cached whole everywhere. */
const SMALL = { path: '/static/small.css', size: 300_000 };
const CROWD = { path: '/video/crowd.bin', size: SLICE + 4 * MIB };
const SEEK = { path: '/video/seek.bin', size: SLICE + 4 * MIB };
/** Both inside the second slice. */
const RANGE = { start: SLICE + 600_000, end: SLICE + 1_599_999 };
const SEEK_RANGE = { start: SLICE + 2_000_000, end: SLICE + 2_999_999 };
const OBJECTS = [LARGE, SMALL, CROWD, SEEK];
/** Tenths of the default map's latencies, and a fast origin link: the test checks bytes and hops, not speed. */
const TOPOLOGY = defaultTopology({ locations: 2, latencyScale: 0.1, originBytesPerSec: 200e6 });

/**
 * Each object's bytes, made once before any system starts: the links are shapers in this process, so a read must not
 * hold its event loop for long (a connection idle past a server's keep-alive would be closed under a request).
 */
const BODIES = new Map(OBJECTS.map((object) => [object.path, objectBytes(object.path, object.size)]));

/** What a system asks the origin for an object of two slices (Range fields, `-` for none), sorted. */
interface OriginAsks {
  /** Both locations at once. */
  crowd: string[];
  /** One location, a range in the second slice. */
  seek: string[];
}

const firstSlice = `bytes=0-${SLICE - 1}`;
/** The last slice to the object's end, as tiercache asks it once the object's size is known (after its first slice). */
const lastSliceToEnd = `bytes=${SLICE}-${CROWD.size - 1}`;
/**
 * The last slice whole, past the end of a short one (the origin answers what there is): nginx always asks so, and
 * tiercache when a range's slice is the first it asks (the size not known yet).
 */
const lastSliceWhole = `bytes=${SLICE}-${2 * SLICE - 1}`;

// Varnish and nginx run where bench/setup/peers/install.sh installed them (this bench machine); CI has neither
// binary, so there only the no-shield baseline (tiercache itself) is checked.
const [varnish, nginx] = await Promise.all([detectVarnish(), detectNginx()]);

describe('no-shield: every location its own tiercache stack, straight to the origin', () => {
  it('serves right bytes at both locations, and the second location reads the origin again', async () => {
    await checkSystem(startNoShieldSystem, {
      shared: false,
      // Each location fills its own caches: every slice once per location.
      crowd: [firstSlice, firstSlice, lastSliceToEnd, lastSliceToEnd],
      seek: [lastSliceWhole],
    });
  });
});

describe.skipIf(!varnish)('varnish: a Varnish per location and a Varnish shield', () => {
  it('serves right bytes at both locations, the second from the shield; a miss fetches the whole object', async () => {
    // The shield coalesces the crowd into one fetch; a miss, ranged or not, asks the whole object (no Range).
    await checkSystem(varnishSystem({ storageMiB: 256 }), { shared: true, crowd: ['-'], seek: ['-'] });
  });
});

describe.skipIf(!nginx?.hasSlice)('nginx-slice: nginx slice per location and as the shield', () => {
  it('serves right bytes at both locations, the second from the shield; each slice asked once', async () => {
    await checkSystem(startNginxSliceSystem, {
      shared: true,
      crowd: [firstSlice, lastSliceWhole],
      seek: [lastSliceWhole],
    });
  });
});

/** `shared`: the locations share a shield, so the second location's reads must not reach the origin. */
async function checkSystem(start: StartSystem, expected: OriginAsks & { shared: boolean }): Promise<void> {
  const origin = await startRangeOrigin(Object.fromEntries(OBJECTS.map((object) => [object.path, object.size])));
  const system = await start(TOPOLOGY, { url: origin.url }).catch(async (error: unknown) => {
    await origin.close();
    throw error;
  });
  try {
    expect(system.locations.map((location) => location.name)).toEqual(['ams', 'iad']);
    await checkSecondLocation(system, origin, expected.shared);
    await Promise.all([read(system, 0, CROWD), read(system, 1, CROWD)]);
    expect(origin.ranges(CROWD.path).sort()).toEqual(expected.crowd);
    await read(system, 0, SEEK, SEEK_RANGE);
    expect(origin.ranges(SEEK.path).sort()).toEqual(expected.seek);
  } finally {
    await system.stop();
    await origin.close();
  }
}

/** A location reads, then the other: from the shield when `shared`, from the origin again when not. */
async function checkSecondLocation(system: SimSystem, origin: RangeOrigin, shared: boolean): Promise<void> {
  // The first location: a cold whole GET, then a Range of the object it now holds.
  const cold = await read(system, 0, LARGE);
  expect(tierStatus(cold.cacheStatus, 'edge')).toBe('miss');
  const large = origin.requests(LARGE.path);
  expect(large).toBeGreaterThan(0);
  const held = await read(system, 0, LARGE, RANGE);
  expect(tierStatus(held.cacheStatus, 'edge')).toBe('hit');
  expect(origin.requests(LARGE.path)).toBe(large);
  await read(system, 0, SMALL);
  expect(origin.requests(SMALL.path)).toBe(1);
  // The second location: a miss of its own, then the shield's hit (or, without a shield, the origin's bytes again).
  const second = await read(system, 1, LARGE, RANGE);
  expect(tierStatus(second.cacheStatus, 'edge')).toBe('miss');
  expect(tierStatus(second.cacheStatus, 'shield')).toBe(shared ? 'hit' : 'miss');
  await read(system, 1, LARGE);
  await read(system, 1, SMALL);
  if (shared) {
    expect(origin.requests(LARGE.path)).toBe(large);
    expect(origin.requests(SMALL.path)).toBe(1);
  } else {
    expect(origin.requests(LARGE.path)).toBeGreaterThan(large);
    expect(origin.requests(SMALL.path)).toBe(2);
  }
}

/** GET (whole, or one range) at location `index`; its status and every byte checked against the origin's. */
async function read(
  system: SimSystem,
  index: number,
  object: { path: string; size: number },
  range?: { start: number; end: number },
): Promise<{ cacheStatus: string }> {
  const location = system.locations[index]!;
  const response = await fetch(`${location.url}${object.path}`, {
    headers: range ? { Range: `bytes=${range.start}-${range.end}` } : {},
    signal: AbortSignal.timeout(30_000),
  });
  const body = Buffer.from(await response.arrayBuffer());
  const what = `${system.name} at ${location.name}: ${object.path} ${range ? `bytes=${range.start}-${range.end}` : ''}`;
  expect(response.status, what).toBe(range ? 206 : 200);
  const expected = BODIES.get(object.path)!.subarray(range?.start ?? 0, (range?.end ?? object.size) + 1);
  expect(body.length, what).toBe(expected.length);
  expect(body.equals(expected), `${what}: bytes`).toBe(true);
  return { cacheStatus: response.headers.get('cache-status') ?? '' };
}

/**
 * The member of the tier `role` (`*-edge`, `*-shield`: tiercache's, Varnish's and nginx's names) in a Cache-Status
 * field (RFC 9211: nearest the origin first), as hit or miss; `absent` when that tier said nothing.
 */
function tierStatus(field: string, role: 'edge' | 'shield'): 'hit' | 'miss' | 'absent' {
  const members = field.split(',').map((member) =>
    member
      .trim()
      .split(';')
      .map((part) => part.trim()),
  );
  const member = members.findLast(([name]) => name?.endsWith(`-${role}`));
  if (member === undefined) return 'absent';
  return member.slice(1).includes('hit') ? 'hit' : 'miss';
}
