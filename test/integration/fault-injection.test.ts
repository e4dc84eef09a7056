// Origin faults, injected by the tap in front of the real S3 server (the bytes still come from
// s3rver): a reset inside a slice, a stall, a Content-Length longer than the body, a
// Content-Range off by one, a busy origin. After each: every way a client reads the object
// (full, a range across the fault, `bytes=0-`, a resume from the middle) gets exactly its
// bytes, at the edge, at the shield (a host the edge holds nothing for), and again once the
// edge keeps a whole copy; and the origin was asked exactly as often as healing needs.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OriginFault, RecordedRequest } from '../local/origin-tap.ts';
import { patternBytes, sha256 } from './bytes.ts';
import { type Fixture, type RawAnswer, rawRequest, settle, startFixture } from './fixture.ts';

const MiB = 1024 * 1024;
const KiB = 1024;
let f: Fixture;

beforeAll(async () => {
  // Sliced from 1 MiB, kept whole up to 8 MiB; memory holds what is under 64 KiB; a body silent
  // for 300 ms is broken.
  f = await startFixture({
    SLICE_SIZE: '1MiB',
    WHOLE_COPY_MAX: '8MiB',
    MEMORY_OBJECT_MAX: '64KiB',
    ORIGIN_IDLE_TIMEOUT_MS: '300',
  });
});
afterAll(() => f?.close());

type Shape = 'sliced' | 'whole' | 'memory';
const SIZES: Record<Shape, number> = { sliced: 5.5 * MiB + 123, whole: 600 * KiB, memory: 40 * KiB };

interface FaultCase {
  name: string;
  /** The object byte the fault strikes at (for a range across it, and to pick the origin answer). */
  at: number;
  fault: (start: number) => OriginFault;
  /** Origin GETs the first read needs beyond the plain ones (a heal, a retry); undefined: it depends on timing. */
  extra: number | undefined;
  /** The read the fault struck: heals (every byte), fails visibly (a broken transfer, nothing stored), or either. */
  first: 'heals' | 'fails' | 'either';
}

/** The first byte of the object an origin GET asks for. */
function rangeStart(request: RecordedRequest): number {
  return Number(/^bytes=(\d+)-/.exec(request.headers.range ?? '')?.[1] ?? 0);
}

function rangeEnd(request: RecordedRequest, size: number): number {
  const end = /^bytes=\d+-(\d+)/.exec(request.headers.range ?? '')?.[1];
  return end === undefined ? size - 1 : Math.min(size - 1, Number(end));
}

/** Faults for a sliced object: a reset in the first, a middle and the last slice; a stall; the rest. */
function slicedCases(size: number): FaultCase[] {
  return [
    {
      name: 'a reset inside slice 0',
      at: 300_000,
      fault: (start) => ({ kind: 'reset', after: 300_000 - start }),
      extra: 1,
      first: 'heals',
    },
    {
      name: 'a reset inside a middle slice',
      at: 2.5 * MiB + 100,
      fault: (start) => ({ kind: 'reset', after: 2.5 * MiB + 100 - start }),
      extra: 1,
      first: 'heals',
    },
    {
      name: 'a reset inside the last slice',
      at: size - 200,
      fault: (start) => ({ kind: 'reset', after: size - 200 - start }),
      extra: 1,
      first: 'heals',
    },
    {
      name: 'a stall in the middle of a body',
      at: 3 * MiB + 50,
      fault: (start) => ({ kind: 'stall', after: 3 * MiB + 50 - start }),
      extra: 1,
      first: 'heals',
    },
    {
      name: 'a Content-Length longer than the body',
      at: 5 * MiB + 10,
      fault: () => ({ kind: 'long-length', extra: 1000 }),
      extra: 0,
      first: 'heals',
    },
    // Bytes other than those asked for: the version is forgotten; the read fails if its first byte went out.
    {
      name: 'a Content-Range off by one',
      at: 2 * MiB + 7,
      fault: () => ({ kind: 'shifted-range', by: 1 }),
      extra: undefined,
      first: 'either',
    },
    {
      name: 'a 503 with Retry-After',
      at: 10,
      fault: () => ({ kind: 'busy', status: 503, retryAfter: '1' }),
      extra: 1,
      first: 'heals',
    },
    {
      name: 'a 429 with Retry-After',
      at: 4 * MiB + 10,
      fault: () => ({ kind: 'busy', status: 429, retryAfter: '1' }),
      extra: 1,
      first: 'heals',
    },
  ];
}

/** Faults for an object fetched whole: it cannot heal, so the read it strikes fails visibly and stores nothing. */
function wholeCases(size: number): FaultCase[] {
  const middle = Math.floor(size / 2);
  return [
    {
      name: 'a reset inside the body',
      at: middle,
      fault: () => ({ kind: 'reset', after: middle }),
      extra: 0,
      first: 'fails',
    },
    {
      name: 'a stall in the middle of the body',
      at: middle - 99,
      fault: () => ({ kind: 'stall', after: middle - 99 }),
      extra: 0,
      first: 'fails',
    },
    // The Content-Range says how long the body is: that is what counts.
    {
      name: 'a Content-Length longer than the body',
      at: middle,
      fault: () => ({ kind: 'long-length', extra: 1000 }),
      extra: 0,
      first: 'heals',
    },
    // Discovery meets bytes other than those asked for, and asks again.
    {
      name: 'a Content-Range off by one',
      at: 0,
      fault: () => ({ kind: 'shifted-range', by: 1 }),
      extra: 1,
      first: 'heals',
    },
    {
      name: 'a 503 with Retry-After',
      at: 0,
      fault: () => ({ kind: 'busy', status: 503, retryAfter: '1' }),
      extra: 1,
      first: 'heals',
    },
    {
      name: 'a 429 with Retry-After',
      at: 0,
      fault: () => ({ kind: 'busy', status: 429, retryAfter: '1' }),
      extra: 1,
      first: 'heals',
    },
  ];
}

const CASES: [Shape, FaultCase][] = [
  ...slicedCases(SIZES.sliced).map((c): [Shape, FaultCase] => ['sliced', c]),
  ...wholeCases(SIZES.whole).map((c): [Shape, FaultCase] => ['whole', c]),
  ...wholeCases(SIZES.memory).map((c): [Shape, FaultCase] => ['memory', c]),
];

let objects = 0;

const get = (key: string, headers: Record<string, string> = {}): Promise<RawAnswer> =>
  rawRequest(new URL(`/${key}`, f.stack.url), headers);
const originGets = (key: string): number =>
  f.tap.requests.filter((r) => r.method === 'GET' && r.path.endsWith(key)).length;
const edgeMember = (answer: RawAnswer): string => (answer.headers.get('cache-status') ?? '').split(',').at(-1) ?? '';

/** The right bytes, or a visibly broken transfer: never a complete-looking wrong body. */
function expectRightOrBroken(answer: RawAnswer, bytes: Uint8Array, label: string): void {
  if (answer.error === undefined && answer.status < 300) {
    expect(sha256(answer.body), label).toBe(sha256(bytes));
    return;
  }
  // A failure is a status of its own or a transfer that broke before its Content-Length.
  expect(answer.error !== undefined || answer.status >= 500, label).toBe(true);
}

/** Every way a client reads the object, each byte-identical. */
async function expectEveryRead(
  key: string,
  bytes: Uint8Array,
  at: number,
  headers: Record<string, string> = {},
): Promise<void> {
  const size = bytes.length;
  const full = await get(key, headers);
  expect(full.error, `${key}: full GET`).toBeUndefined();
  expect(full.status).toBe(200);
  expect(full.headers.get('content-length')).toBe(String(size));
  expect(sha256(full.body), `${key}: full GET`).toBe(sha256(bytes));

  const from = Math.max(0, at - 5000);
  const to = Math.min(size - 1, at + 5000);
  const across = await get(key, { ...headers, range: `bytes=${from}-${to}` });
  expect(across.status).toBe(206);
  expect(across.headers.get('content-range')).toBe(`bytes ${from}-${to}/${size}`);
  expect(sha256(across.body), `${key}: range across the fault`).toBe(sha256(bytes.subarray(from, to + 1)));

  const opening = await get(key, { ...headers, range: 'bytes=0-' });
  expect(opening.status).toBe(206);
  expect(opening.error).toBeUndefined();
  expect(sha256(opening.body), `${key}: bytes=0-`).toBe(sha256(bytes));

  const middle = Math.floor(size / 2) + 17;
  const resume = await get(key, { ...headers, range: `bytes=${middle}-` });
  expect(resume.status).toBe(206);
  expect(resume.error).toBeUndefined();
  expect(sha256(resume.body), `${key}: resume from the middle`).toBe(sha256(bytes.subarray(middle)));
}

describe('origin faults: every later read is byte-identical, at both tiers, and the origin is asked only as healing needs', () => {
  for (const [shape, fault] of CASES) {
    it(`${shape} object, ${fault.name}`, async () => {
      const key = `faults/${shape}-${++objects}.bin`;
      const size = SIZES[shape];
      const bytes = patternBytes(100 + objects, size);
      await f.origin.putObject(key, bytes, { 'content-type': 'application/octet-stream' });
      let struck = false;
      f.tap.faults((request) => {
        if (struck || request.method !== 'GET' || !request.path.endsWith(key)) return undefined;
        const start = rangeStart(request);
        if (fault.at < start || fault.at > rangeEnd(request, size)) return undefined;
        struck = true;
        return fault.fault(start);
      });
      const before = originGets(key);

      const first = await get(key);
      expect(struck, 'the fault was injected').toBe(true);
      if (fault.first === 'heals') {
        expect(first.error, 'the read the fault struck heals').toBeUndefined();
        expect(first.status).toBe(200);
        expect(sha256(first.body), 'the read the fault struck heals').toBe(sha256(bytes));
      } else if (fault.first === 'fails') {
        // Visibly: a 200 that announced every byte and broke before the last.
        expect(first.status).toBe(200);
        expect(first.headers.get('content-length')).toBe(String(size));
        expect(first.error, 'the read the fault struck breaks visibly').toBeDefined();
        expect(first.body.length).toBeLessThan(size);
      } else expectRightOrBroken(first, bytes, 'the read the fault struck');
      f.tap.faults(undefined);
      await settle(400);
      const cold = originGets(key) - before;
      const plain = shape === 'sliced' ? Math.ceil(size / MiB) : 1;
      if (fault.extra !== undefined) expect(cold, 'origin GETs of the first read').toBe(plain + fault.extra);

      // The edge, then the shield alone (another host: the edge holds nothing for it).
      await expectEveryRead(key, bytes, fault.at);
      await expectEveryRead(key, bytes, fault.at, { host: `shield-only-${objects}.test` });
      await settle(400);
      const afterReads = originGets(key);
      // A read the fault broke stored nothing: the first read after it fetched the object once more.
      if (fault.first === 'heals') expect(afterReads - before, 'no origin GET after the first read').toBe(cold);
      if (fault.first === 'fails')
        expect(afterReads - before, 'the object fetched once more, then never').toBe(cold + 1);

      if (shape === 'sliced') {
        // A full read from the edge's own slices makes its whole copy; the copy is exact too.
        await get(key);
        await settle(400);
        const whole = await get(key);
        expect(edgeMember(whole)).toMatch(/detail="whole copy"/);
        expect(sha256(whole.body)).toBe(sha256(bytes));
        await expectEveryRead(key, bytes, fault.at);
      }
      expect(originGets(key), 'no origin GET once every tier holds the object').toBe(afterReads);
      // Nothing the fault left behind holds an origin connection.
      expect(f.tap.open()).toBe(0);
    });
  }
});
