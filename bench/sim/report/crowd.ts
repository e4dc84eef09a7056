// What the cold crowd cost the origin: for each slice of the new object (tiercache's slice size), how many origin
// answers carried a byte of it. One per slice is the promise (a byte costs the origin once, however many locations
// ask at once); a system without a shared tier is asked once per location.

import type { OriginAnswer } from '../catalogue-origin.ts';

export interface CrowdCost {
  path: string;
  size: number;
  originRequests: number;
  originBytes: number;
  slices: number;
  /** Origin answers that carried a byte of each slice, in order. */
  perSlice: number[];
}

export function crowdCost(path: string, size: number, answers: readonly OriginAnswer[], sliceBytes: number): CrowdCost {
  const slices = Math.max(1, Math.ceil(size / sliceBytes));
  const perSlice = new Array<number>(slices).fill(0);
  let originBytes = 0;
  const mine = answers.filter((answer) => answer.path === path);
  for (const answer of mine) {
    originBytes += answer.sentBytes;
    if (answer.sentBytes === 0) continue;
    const first = Math.floor(answer.start / sliceBytes);
    const last = Math.floor((answer.start + answer.sentBytes - 1) / sliceBytes);
    for (let slice = first; slice <= last && slice < slices; slice++) perSlice[slice] = (perSlice[slice] ?? 0) + 1;
  }
  return { path, size, originRequests: mine.length, originBytes, slices, perSlice };
}
