// What the next hop said of this request's slices, folded into what this tier reports for it: the next tier's one
// RFC 9211 Cache-Status member, and one Server-Timing metric per name. Pure: the answers are collected by hop-log.ts.

import { appendCacheStatus, type CacheStatusParams, cacheStatusMember, withoutMember } from '../http/cache-status.ts';
import { formatTimingMetric, parseServerTiming, type TimingMetric } from '../http/server-timing.ts';

/** One answer of the next hop for this request, as its head said. */
export interface HopAnswer {
  /** The slices it is the next hop's verdict on; 0 for one about the object alone (a 304, a 416). */
  slices: number;
  /** The next tier's Cache-Status member on it; undefined when it has none (the origin has no member of ours). */
  member: CacheStatusParams | undefined;
  /** Its Server-Timing field. */
  timing: string | null;
}

/** The next hop's answers this request had heard when its head went out, in slice order, and what was still coming. */
export interface HopReport {
  answers: readonly HopAnswer[];
  /** Slices asked of the next hop whose answer had not come yet. */
  pending: number;
}

/**
 * The next tier's member for this request, folded from its answers (RFC 9211 §2: a member says how that cache
 * handled *this* request): undefined when the request asked nothing of it (then the member stored with the response,
 * how it was filled, stands, as for any stored response).
 *
 * - `hit` (§2.1) only when every slice asked of it was answered from its store: each answer a hit, none still coming.
 * - `fwd` (§2.2) once any answer went forward, with the first such answer's reason (slice order: the object's own
 *   answer, a revalidation, first): `uri-miss` for an object it had never seen, `partial` for slices missing beside a
 *   manifest it held, `stale` for one it revalidated; `fwd-status` (§2.3) the first one given.
 * - `ttl` (§2.4) the least remaining freshness given; `stored` (§2.5), `collapsed` (§2.6) when any answer says so.
 * - `tiercache-store` (cache-status.ts STORE_PARAM): the store the answers name.
 * - `detail` (§2.8): the first answer's own words (say `stale-while-revalidate`), then `slices H/C of T`: of the C
 *   slices it looked up for this request, H were stored there, of the T it was asked for (T shown when more than C:
 *   slices still coming, or never looked up).
 *
 * With answers still coming and every one heard a hit, it says neither hit nor fwd: that is not known yet.
 */
export function hopMember(report: HopReport): CacheStatusParams | undefined {
  const { answers, pending } = report;
  if (answers.length === 0 && pending === 0) return undefined;
  const members = answers.flatMap((answer) => (answer.member === undefined ? [] : [answer.member]));
  const params: CacheStatusParams = {};
  const forward = members.find((member) => member.fwd !== undefined);
  if (forward?.fwd !== undefined) params.fwd = forward.fwd;
  else if (pending === 0 && members.length > 0 && members.every((member) => member.hit)) params.hit = true;
  const fwdStatus = members.find((member) => member.fwd !== undefined && member.fwdStatus !== undefined)?.fwdStatus;
  if (fwdStatus !== undefined) params.fwdStatus = fwdStatus;
  const ttls = members.flatMap((member) => (member.ttl === undefined ? [] : [member.ttl]));
  if (ttls.length > 0) params.ttl = Math.min(...ttls);
  if (members.some((member) => member.stored)) params.stored = true;
  if (members.some((member) => member.collapsed)) params.collapsed = true;
  const detail = foldedDetail(answers, pending);
  if (detail !== undefined) params.detail = detail;
  // Which store the shield keeps copies in: one shield, one store; the first answer that names it.
  const store = members.find((member) => member.store !== undefined)?.store;
  if (store !== undefined) params.store = store;
  return params;
}

/**
 * One metric per name from the answers' Server-Timing, in the order the hops wrote them (the origin's before the
 * shield's): `dur` the longest given (the slowest answer heard; none when none gave one, say the origin asked for a
 * slice it has not answered yet), `desc` how many slices it covers (an answer's own `N slices` desc, else the slices
 * it carries; none for answers about the object alone).
 */
export function hopTimings(answers: readonly HopAnswer[]): string {
  const folded = new Map<string, { dur: number | undefined; slices: number }>();
  const order: string[] = [];
  for (const answer of answers) {
    const metrics = parseServerTiming(answer.timing);
    for (const [at, metric] of metrics.entries()) {
      const seen = folded.get(metric.name);
      const slices = sliceCount(metric.desc) ?? answer.slices;
      const dur = seen?.dur === undefined ? metric.dur : Math.max(seen.dur, metric.dur ?? seen.dur);
      folded.set(metric.name, { dur, slices: (seen?.slices ?? 0) + slices });
      if (seen === undefined) placeName(order, metric.name, metrics.slice(at + 1));
    }
  }
  return order
    .map((name) => {
      const { dur, slices } = folded.get(name) ?? { dur: undefined, slices: 0 };
      return formatTimingMetric({ name, dur, desc: slices > 0 ? slicesDesc(slices) : undefined });
    })
    .join(', ');
}

/** `headers` with the next tier's member (`cache` names it) and the hop's metrics as `report` folds them. */
/**
 * `report` with the slices this tier found missing (`missed`, each to be asked of the next hop) that it had not asked
 * yet when the head went out counted as still coming: the next hop will handle them for this request, so the member
 * stored with the manifest (how it was filled, long ago) must not stand for them.
 */
export function withUnasked(report: HopReport, missed: number): HopReport {
  const asked = report.answers.reduce((sum, answer) => sum + answer.slices, 0) + report.pending;
  return missed > asked ? { ...report, pending: report.pending + missed - asked } : report;
}

export function withHopReport(headers: Headers, report: HopReport, cache: string | undefined): Headers {
  const member = cache === undefined ? undefined : hopMember(report);
  if (cache !== undefined && member !== undefined)
    headers.set(
      'cache-status',
      appendCacheStatus(withoutMember(headers.get('cache-status'), cache), cacheStatusMember(cache, member)),
    );
  const timing = hopTimings(report.answers);
  if (timing === '') headers.delete('server-timing');
  else headers.set('server-timing', timing);
  return headers;
}

/** The desc a folded metric gives its slices: `1 slice`, `3 slices`. */
function slicesDesc(slices: number): string {
  return `${slices} slice${slices === 1 ? '' : 's'}`;
}

function sliceCount(desc: string | undefined): number | undefined {
  const match = /^(\d{1,9}) slices?$/.exec(desc ?? '');
  return match === null ? undefined : Number(match[1]);
}

/** A name first seen placed before the first name already placed that came after it in its own answer. */
function placeName(order: string[], name: string, after: readonly TimingMetric[]): void {
  const next = after.map((metric) => order.indexOf(metric.name)).find((at) => at >= 0);
  if (next === undefined) order.push(name);
  else order.splice(next, 0, name);
}

/** The slices a member's detail counts, as slicedReport (tier-headers.ts) writes them, and the words before them. */
interface SliceDetail {
  words: string | undefined;
  hits: number;
  checked: number;
}

function sliceDetail(detail: string | undefined): SliceDetail {
  const match = /^(?:(.*?) )?slices (\d{1,9})\/(\d{1,9})(?: of \d{1,9})?$/.exec(detail ?? '');
  if (match === null) return { words: detail, hits: 0, checked: 0 };
  return { words: match[1], hits: Number(match[2]), checked: Number(match[3]) };
}

function foldedDetail(answers: readonly HopAnswer[], pending: number): string | undefined {
  const details = answers.map((answer) => sliceDetail(answer.member?.detail));
  const words = details.find((detail) => detail.words !== undefined)?.words;
  const hits = details.reduce((sum, detail) => sum + detail.hits, 0);
  const checked = details.reduce((sum, detail) => sum + detail.checked, 0);
  const asked = answers.reduce((sum, answer) => sum + answer.slices, 0) + pending;
  if (asked === 0 && checked === 0) return words;
  const slices = `slices ${hits}/${checked}${asked > checked ? ` of ${asked}` : ''}`;
  return words === undefined ? slices : `${words} ${slices}`;
}
