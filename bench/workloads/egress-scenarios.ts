// What bench:egress's scripted clients ask of one cold object: a player, a downloader that reconnects, a burst of
// ranges into one slice, and HEAD + ranges + a full GET. Each a list of steps; a step's reads run at once.

import type { ReadPlan } from '../load/range-read.ts';

const KIB = 1024;
const MIB = 1024 * KIB;

export interface Scenario {
  name: string;
  /** What it does, for the report. */
  description: string;
  /** The steps for an object of `size` bytes cut in slices of `sliceSize`: in order, each step's reads together. */
  steps(size: number, sliceSize: number): ReadPlan[][];
}

const whole = (size: number) => ({ start: 0, end: size - 1 });
const from = (start: number, size: number) => ({ start, end: size - 1 });

/** Where the object's last slice starts. */
export function lastSliceStart(size: number, sliceSize: number): number {
  return Math.floor((size - 1) / sliceSize) * sliceSize;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'player',
    description:
      'a browser opening a video: `bytes=0-` read 1 MiB and cut; a seek into the last slice (`bytes=N-`, N half a MiB into it) read 256 KiB and cut; then playing on from 1 MiB (`bytes=1048576-`) to the end',
    steps: (size, sliceSize) => {
      const last = lastSliceStart(size, sliceSize);
      const seek = Math.min(last + 512 * KIB, last + Math.floor((size - last) / 2));
      return [
        [{ label: 'bytes=0- cut at 1 MiB', range: 'bytes=0-', expect: whole(size), cutAfter: MIB }],
        [
          {
            label: `bytes=${seek}- cut at 256 KiB`,
            range: `bytes=${seek}-`,
            expect: from(seek, size),
            cutAfter: 256 * KIB,
          },
        ],
        [{ label: `bytes=${MIB}- to the end`, range: `bytes=${MIB}-`, expect: from(MIB, size) }],
      ];
    },
  },
  {
    name: 'reconnecting downloader',
    description: 'three `bytes=0-` reads cut at 1, 3 and 5 MiB, one after the other, then a full GET',
    steps: (size) => [
      ...[1, 3, 5].map((mib) => [
        { label: `bytes=0- cut at ${mib} MiB`, range: 'bytes=0-', expect: whole(size), cutAfter: mib * MIB },
      ]),
      [{ label: 'GET', expect: whole(size) }],
    ],
  },
  {
    name: 'burst',
    description:
      'eight ranges of 128 KiB at once, spread over one cold slice (the second, or the only one), each read to its end',
    steps: (size, sliceSize) => {
      const start = size > sliceSize ? sliceSize : 0;
      const length = Math.min(sliceSize, size - start);
      const each = Math.min(128 * KIB, Math.floor(length / 8));
      return [
        Array.from({ length: 8 }, (_, i) => {
          const first = start + Math.floor((i * length) / 8);
          const range = { start: first, end: first + each - 1 };
          return {
            label: `bytes=${range.start}-${range.end}`,
            range: `bytes=${range.start}-${range.end}`,
            expect: range,
          };
        }),
      ];
    },
  },
  {
    name: 'concurrent arrivals',
    description:
      '`bytes=0-` read 1 MiB and cut; 150 ms after it, while the first slice is still filling, a seek into that slice (`bytes=N-`, N half of it) read to the end; 300 ms after it a full GET',
    steps: (size, sliceSize) => {
      const seek = Math.floor(Math.min(sliceSize, size) / 2);
      return [
        [
          { label: 'bytes=0- cut at 1 MiB', range: 'bytes=0-', expect: whole(size), cutAfter: MIB },
          { label: `+150 ms bytes=${seek}-`, range: `bytes=${seek}-`, expect: from(seek, size), delayMs: 150 },
          { label: '+300 ms GET', expect: whole(size), delayMs: 300 },
        ],
      ];
    },
  },
  {
    name: 'HEAD + ranges + full',
    description:
      'HEAD; then, one after the other, the first 100 bytes, 1000 bytes across the first slice boundary, the last 1000 bytes (`bytes=-1000`); then a full GET',
    steps: (size, sliceSize) => {
      const boundary = Math.min(sliceSize, size - 500);
      const across = { start: boundary - 500, end: boundary + 499 };
      return [
        [{ label: 'HEAD', method: 'HEAD', expect: whole(size) }],
        [{ label: 'bytes=0-99', range: 'bytes=0-99', expect: { start: 0, end: 99 } }],
        [
          {
            label: `bytes=${across.start}-${across.end}`,
            range: `bytes=${across.start}-${across.end}`,
            expect: across,
          },
        ],
        [{ label: 'bytes=-1000', range: 'bytes=-1000', expect: from(size - 1000, size) }],
        [{ label: 'GET', expect: whole(size) }],
      ];
    },
  },
];
