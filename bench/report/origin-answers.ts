// The answers one object got from the origin, as two counting proxies saw them: at the origin (what it sent) and in
// front of the shield (what crossed the shaped link), folded into byte intervals. Pure.

import type { OriginResponse } from '../probes/origin-ledger.ts';
import { type Coverage, coverage, servedInterval } from './byte-intervals.ts';

export interface OriginAnswers {
  /** What the origin sent (counted at the origin): loopback's socket buffers take MBs of an answer at once. */
  sent: Coverage;
  /** What reached the shield (counted after the shaper): an answer cut by the shield counts what it had read. */
  received: Coverage;
  responses: number;
  /** Answers whose connection closed before their body ended. */
  cut: number;
  /** One line per answer: what was asked, the answer, what was sent and received. */
  detail: string[];
}

const MB = 1e6;

export function originAnswers(atOrigin: readonly OriginResponse[], atShield: readonly OriginResponse[]): OriginAnswers {
  const unpaired = [...atShield];
  const detail = atOrigin.map((answer) => {
    // The same request seen in front of the shield: the first not yet paired that asked the same.
    const index = unpaired.findIndex((r) => r.method === answer.method && r.range === answer.range);
    const [seen] = index < 0 ? [] : unpaired.splice(index, 1);
    const what = answer.contentRange === undefined ? String(answer.status) : `${answer.status} ${answer.contentRange}`;
    const received = seen === undefined ? '' : `, ${(seen.bodyBytes / MB).toFixed(2)} MB received`;
    return `${answer.method} ${answer.range ?? 'whole'} → ${what}, ${(answer.bodyBytes / MB).toFixed(2)} MB sent${received}${answer.complete && seen?.complete !== false ? '' : ', cut'}`;
  });
  return {
    sent: coverage(intervalsOf(atOrigin)),
    received: coverage(intervalsOf(atShield)),
    responses: atOrigin.length,
    cut: atShield.filter((r) => !r.complete).length,
    detail,
  };
}

function intervalsOf(answers: readonly OriginResponse[]) {
  return answers.flatMap((r) => {
    const served = r.method === 'GET' ? servedInterval(r.status, r.contentRange, r.bodyBytes) : undefined;
    return served === undefined ? [] : [served];
  });
}
