// The targets tiercache is held to on a run (the many-locations promise), for tiercache: origin bytes ÷ unique bytes ≤ 1.02, the cold crowd once per
// slice, misses' first byte p50 ≤ 1.2× the floor at every location, a purge everywhere within the modelled bound, the
// ledger exact, no wrong byte from any system, and, where it prefetched segments, at most 5 % of the origin's bytes
// spent on what no client asked for. Each says what was measured; `n/a` where tiercache did not run.

import type { SimReport } from './sim-report.ts';

const ORIGIN_PER_UNIQUE_TARGET = 1.02;
/** The most of the origin's bytes segment prefetching may spend on what no client asks for. */
const PREFETCH_WASTE_TARGET = 0.05;
const MISS_FLOOR_TARGET = 1.2;

export interface TargetVerdict {
  target: string;
  measured: string;
  met: boolean | undefined;
}

export function simTargets(report: SimReport): TargetVerdict[] {
  const tiercache = report.systems.find((system) => system.name === 'tiercache');
  const wrong = report.systems.reduce((sum, system) => sum + system.wrongBytes, 0);
  const verdicts: TargetVerdict[] = [
    { target: 'no wrong byte, any system', measured: `${wrong} responses with a wrong byte`, met: wrong === 0 },
  ];
  if (tiercache === undefined) return verdicts;
  // Where segments were prefetched, what the origin sent for paths no client asked for is prefetching's, judged by its
  // own target below: this one judges the bytes clients asked for, each to be fetched once.
  const prefetching = tiercache.segments?.prefetches !== undefined;
  const unasked = prefetching ? (tiercache.segments?.unaskedBytes ?? 0) : 0;
  const ratio =
    prefetching && tiercache.uniqueBytes > 0
      ? (tiercache.originBytes - unasked) / tiercache.uniqueBytes
      : tiercache.originPerUnique;
  const perSlice = tiercache.crowd === undefined ? undefined : Math.max(...tiercache.crowd.perSlice);
  const misses = tiercache.firstBytes.filter((row) => row.path === 'miss' && row.floorMs > 0);
  const worstMiss = Math.max(...misses.map((row) => row.p50 / row.floorMs));
  const purge = tiercache.purge;
  verdicts.push(
    {
      target: `tiercache origin/unique ≤ ${ORIGIN_PER_UNIQUE_TARGET}${prefetching ? ' (the paths clients asked for)' : ''}`,
      measured: ratio === undefined ? 'n/a' : ratio.toFixed(3),
      met: ratio === undefined ? undefined : ratio <= ORIGIN_PER_UNIQUE_TARGET,
    },
    {
      target: 'cold crowd: the origin asked once per slice',
      measured: perSlice === undefined ? 'n/a' : `at most ${perSlice} answers for a slice`,
      met: perSlice === undefined ? undefined : perSlice <= 1,
    },
    {
      target: `tiercache misses: first byte p50 ≤ ${MISS_FLOOR_TARGET}× the floor at every location`,
      measured: misses.length === 0 ? 'n/a' : `worst ${worstMiss.toFixed(2)}×`,
      met: misses.length === 0 ? undefined : worstMiss <= MISS_FLOOR_TARGET,
    },
    {
      target: 'a purge reaches every location within the modelled bound',
      measured:
        purge === undefined
          ? 'n/a'
          : `${purge.everywhereMs === undefined ? 'never' : `${purge.everywhereMs.toFixed(0)} ms`} (bound ${purge.modelledBoundMs} ms)`,
      met:
        purge === undefined
          ? undefined
          : purge.everywhereMs !== undefined && purge.everywhereMs <= purge.modelledBoundMs,
    },
    {
      target: "the stats' counts equal the client's ledger",
      measured:
        tiercache.ledger === undefined ? 'n/a' : `${tiercache.ledger.counted ?? '?'} of ${tiercache.ledger.answered}`,
      met: tiercache.ledger?.exact,
    },
  );
  const share = tiercache.segments?.unaskedShare;
  if (tiercache.segments?.prefetches !== undefined)
    verdicts.push({
      target: `segment prefetching: origin bytes no client asked for ≤ ${PREFETCH_WASTE_TARGET * 100} % of the origin's`,
      measured: share === undefined ? 'n/a' : `${(share * 100).toFixed(2)} %`,
      met: share === undefined ? undefined : share <= PREFETCH_WASTE_TARGET,
    });
  return verdicts;
}
