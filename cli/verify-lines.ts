// `npm run verify`'s judge (pure): what the run saw (its reads, the health answer, a purge timed, the stats before and
// after) in, one line per claim out, each a verdict, what was seen and, unless it passed, what to do. No I/O:
// cli/verify.ts gathers the observations, cli/verify-report.ts lays the lines out.

import {
  differentLocations,
  type HealthSeen,
  member,
  memberWords,
  type Observations,
  type Place,
  type PreviousRun,
  type PurgeSeen,
  type Read,
  type StatsSeen,
  sliceCounts,
} from './verify-observations.ts';

/** `info`: nothing wrong, but the claim cannot be shown from here this time (the line says how to show it). */
export type Verdict = 'pass' | 'fail' | 'info' | 'skipped';

const LINE_IDS = [
  'health',
  'edge-cache',
  'second-location',
  'previous',
  'sliced-read',
  'slices-at-shield',
  'range',
  'seek',
  'purge',
  'origin-bytes',
] as const;
export type LineId = (typeof LINE_IDS)[number];

export interface Line {
  id: LineId;
  verdict: Verdict;
  /** What was seen, one sentence or two. */
  says: string;
  /** What to do: why it failed and the fix, how to show it, or what to pass; absent on a pass. */
  advice?: string;
}

/** The edge's detail on an answer from its whole copy of a sliced object (worker/whole-copy.ts). */
const WHOLE_COPY = 'whole copy';

/** Each line's title in the report. */
export const LINE_TITLES: Record<LineId, string> = {
  health: 'tiers answer',
  'edge-cache': 'edge stores, hits',
  'second-location': 'shield for a miss',
  previous: 'vs previous run',
  'sliced-read': 'sliced object',
  'slices-at-shield': 'slices at shield',
  range: 'range',
  seek: 'seek',
  purge: 'purge time',
  'origin-bytes': 'origin bytes',
};

export const DEPLOY_DOC = 'docs/deploying.md#verify-the-deploy';
const SECOND_LOCATION =
  'run `npm run verify -- --base <the same base> --previous <this report>.json` from a machine that reaches another Cloudflare location (another region, or a VPN exit there): its edge misses and the shield should answer from its cache';

/** How to show the shield from elsewhere: the local stack's other location when it has one, else another machine. */
function secondLocation(place: Place): string {
  const [other] = place.otherLocations ?? [];
  if (other === undefined) return SECOND_LOCATION;
  return `run \`npm run verify -- --base ${other} --previous <this report>.json\`: the local stack's second location, its own cache in front of the same shield, whose edge misses and whose shield should answer from its cache`;
}

/** Every line, in the report's order. */
export function judge(seen: Observations): Line[] {
  return [
    healthLine(seen.health, seen.place),
    edgeCacheLine(seen.object),
    secondLocationLine(seen),
    previousLine(seen.place, seen.previous),
    slicedReadLine(seen.sliced),
    slicesAtShieldLine(seen),
    rangeLine('range', seen),
    rangeLine('seek', seen),
    purgeLine(seen.purge),
    originBytesLine(seen.stats),
  ];
}

function healthLine(health: HealthSeen, place: Place): Line {
  const where = `edge at ${place.edge}, shield at ${place.shield}`;
  if (health.status === 0)
    return fail(
      'health',
      `no answer from the edge: ${health.error ?? 'unknown'}`,
      "check --base: the edge's URL, as `curl -i <base>/__tiercache/health` reaches it",
    );
  if (health.shield !== 'ok')
    return fail(
      'health',
      `${where}: the edge answers ${health.status} but the shield ${health.shield === undefined ? 'is not named' : `is ${health.shield}`}`,
      "the edge cannot reach the shield: deploy the shield before the edge (`npm run deploy` does), give both the same SHIELD_TOKEN, and read the shield's errors with `npx wrangler tail -c shield/wrangler.jsonc`",
    );
  if (health.status !== 200 || health.origin !== 'ok')
    return fail(
      'health',
      `${where}: the origin is ${health.origin ?? 'unknown'} (${health.originDetail ?? `status ${health.status}`})`,
      'the shield cannot read the origin: the detail names the setting to check (docs/operating.md "Health")',
    );
  return { id: 'health', verdict: 'pass', says: `${where}; the origin serves (health 200)` };
}

function edgeCacheLine(object: Observations['object']): Line {
  if ('skipped' in object) return skipped('edge-cache', object.skipped);
  const { path, first, second } = object;
  const bad = badRead(first) ?? badRead(second);
  if (bad !== undefined)
    return fail(
      'edge-cache',
      `${path}: ${bad}`,
      failedReadAdvice(first, second) ?? 'pass --object the path of an object that exists (under 1 MiB is best)',
    );
  if (first.sha256 !== second.sha256)
    return fail(
      'edge-cache',
      `${path}: two reads gave different bytes`,
      'the object changed between the reads, or a tier serves a wrong copy: read it again; if it persists, purge it and report it',
    );
  const [one, two] = [member(first, 'edge'), member(second, 'edge')];
  const says = `${path} read twice: the edge said ${memberWords(one)}, then ${memberWords(two)}`;
  if (two?.hit === true) return { id: 'edge-cache', verdict: 'pass', says };
  const reason = two?.fwd;
  const advice =
    reason === 'bypass' || reason === 'request' || reason === 'method'
      ? 'the edge did not look in its cache for this object (a RULES bypass, a cookie or authorization the rules bypass on): pass --object one the edge caches'
      : "the edge's cache kept nothing: Cloudflare's Cache API works on custom domains only, never on *.workers.dev (https://developers.cloudflare.com/workers/runtime-apis/cache/): serve the edge on a custom domain (docs/deploying.md); if it is one, check the object is storable (its Cache-Control, a RULES ttl; docs/caching.md)";
  return fail('edge-cache', says, advice);
}

function secondLocationLine(seen: Observations): Line {
  const { object, previous, place } = seen;
  if ('skipped' in object) return skipped('second-location', object.skipped);
  if (badRead(object.first) !== undefined) return unread('second-location', object.path, 'edge-cache');
  const edge = member(object.first, 'edge');
  const shield = member(object.first, 'shield');
  const said = `${object.path} first read here (edge at ${place.edge}): the edge said ${memberWords(edge)}, the shield ${memberWords(shield)}`;
  if (edge?.hit === true)
    return info(
      'second-location',
      `${said}: the edge held it already, so the shield was not asked`,
      secondLocation(place),
    );
  if (shield?.hit === true)
    return {
      id: 'second-location',
      verdict: 'pass',
      says: `${said}: the shield answered this location's miss from its cache`,
    };
  const elsewhere =
    previous !== undefined && differentLocations(previous, place) && previous.object?.path === object.path;
  if (elsewhere && previous.shield === place.shield)
    return fail(
      'second-location',
      `${said}, though the run at ${previous.edge} (${previous.at}) read it through the shield at ${previous.shield}`,
      "the shield's cache did not keep it: check the shield's cache mode (docs/deploying.md: Workers Cache needs the account to have it; `cache-api` needs the shield on a custom domain), and that the object is storable for longer than the time between the runs",
    );
  if (elsewhere)
    return info(
      'second-location',
      `${said}; the shield ran at ${previous.shield} before and at ${place.shield} now: each location's shield has a cache of its own`,
      'run both from locations whose shield runs in the same place (placement puts it near the origin: docs/deploying.md)',
    );
  return info(
    'second-location',
    `${said}: the first read through this shield, filled from the origin`,
    secondLocation(place),
  );
}

function previousLine(place: Place, previous: PreviousRun | undefined): Line {
  if (previous === undefined)
    return skipped(
      'previous',
      'pass --previous <report>.json, the report of a run from another location, to compare the two runs',
    );
  const before = `the previous run (${previous.at}) had its edge at ${previous.edge} and its shield at ${previous.shield}; this one had its edge at ${place.edge} and its shield at ${place.shield}`;
  if (differentLocations(previous, place))
    return { id: 'previous', verdict: 'pass', says: `${before}: different locations` };
  return info('previous', `${before}: the same location`, secondLocation(place));
}

function slicedReadLine(sliced: Observations['sliced']): Line {
  if ('skipped' in sliced) return skipped('sliced-read', sliced.skipped);
  const { path, whole } = sliced;
  const bad = badRead(whole);
  if (bad !== undefined)
    return fail(
      'sliced-read',
      `${path}: ${bad}`,
      failedReadAdvice(whole) ?? 'pass --sliced the path of an object larger than SLICE_SIZE (8 MiB by default)',
    );
  const edge = member(whole, 'edge');
  // The edge's whole copy of a sliced object it has served whole from its own slices (docs/slices.md "Whole copies").
  if (edge?.hit === true && edge.detail === WHOLE_COPY)
    return {
      id: 'sliced-read',
      verdict: 'pass',
      says: `${path}: ${whole.bytes} bytes whole, from the edge's whole copy of its slices, sha256 ${whole.sha256}`,
    };
  const counts = sliceCounts(edge);
  if (counts === undefined || counts.of < 2)
    return fail(
      'sliced-read',
      `${path}: ${whole.bytes} bytes, not read in slices (the edge said ${memberWords(edge)})`,
      'pass --sliced an object larger than SLICE_SIZE (8 MiB by default; docs/slices.md)',
    );
  return {
    id: 'sliced-read',
    verdict: 'pass',
    says: `${path}: ${whole.bytes} bytes whole, in ${counts.of} slices, sha256 ${whole.sha256}`,
  };
}

function slicesAtShieldLine(seen: Observations): Line {
  const { sliced, previous, place } = seen;
  if ('skipped' in sliced) return skipped('slices-at-shield', sliced.skipped);
  if (badRead(sliced.whole) !== undefined) return unread('slices-at-shield', sliced.path, 'sliced-read');
  const edge = member(sliced.whole, 'edge');
  const shield = member(sliced.whole, 'shield');
  const edgeCounts = sliceCounts(edge);
  const counts = sliceCounts(shield);
  const said = `the edge said ${memberWords(edge)}, the shield ${memberWords(shield)}`;
  if (
    edge?.hit === true &&
    (edge.detail === WHOLE_COPY || (edgeCounts !== undefined && edgeCounts.held === edgeCounts.of))
  )
    return info(
      'slices-at-shield',
      `${said}: the edge held every slice, so the shield was not asked`,
      secondLocation(place),
    );
  if (counts !== undefined && counts.looked > 0 && counts.held === counts.looked)
    return {
      id: 'slices-at-shield',
      verdict: 'pass',
      says: `${said}: every slice asked of the shield (${counts.held} of ${counts.looked}) was in its cache`,
    };
  const elsewhere =
    previous !== undefined &&
    differentLocations(previous, place) &&
    previous.sliced?.path === sliced.path &&
    previous.shield === place.shield;
  if (elsewhere)
    return fail(
      'slices-at-shield',
      `${said}, though the run at ${previous.edge} (${previous.at}) read the same object`,
      "the shield's cache did not keep the slices: check the shield's cache mode (docs/deploying.md) and SLICE_SIZE against the platform's object limit (docs/slices.md)",
    );
  return info(
    'slices-at-shield',
    `${said}: the shield filled the slices it lacked from the origin`,
    secondLocation(place),
  );
}

function rangeLine(id: 'range' | 'seek', seen: Observations): Line {
  const { sliced, object } = seen;
  if ('skipped' in sliced) return skipped(id, 'skipped' in object ? object.skipped : sliced.skipped);
  const read = sliced[id];
  const what = `${sliced.path} ${read.range ?? ''}`;
  if (read.status === 0)
    return fail(id, `${what}: no answer (${read.error ?? 'unknown'})`, 'check the edge is up (the health line)');
  if (read.status !== 206)
    return fail(
      id,
      `${what}: answered ${read.status}, not 206`,
      failedReadAdvice(read) ??
        'a range must be answered 206 with the bytes asked (RFC 9110 §14.2): report it with this report',
    );
  const expected = `bytes ${read.start}-${read.end}/${sliced.whole.bytes}`;
  if (read.contentRange !== expected)
    return fail(
      id,
      `${what}: Content-Range ${read.contentRange ?? '(none)'}, expected ${expected}`,
      'report it with this report: a wrong Content-Range breaks players',
    );
  if (read.expectedSha256 === undefined || read.sha256 !== read.expectedSha256)
    return fail(
      id,
      `${what}: ${read.bytes} bytes, not the whole read's at that offset`,
      'a tier served a wrong byte: purge the object (`npm run purge -- --url <path>`) and report it with this report',
    );
  return {
    id,
    verdict: 'pass',
    says: `${what}: 206, ${expected}, the same bytes as the whole read (edge ${memberWords(member(read, 'edge'))})`,
  };
}

function purgeLine(purge: PurgeSeen): Line {
  if ('skipped' in purge) return skipped('purge', purge.skipped);
  if ('refused' in purge)
    return fail(
      'purge',
      purge.refused,
      "set PURGE_TOKEN to the deployment's purge secret (`npx wrangler secret put PURGE_TOKEN`)",
    );
  if (!purge.heldBefore)
    return info(
      'purge',
      `${purge.path}: the edge held no copy to purge (see the edge cache line)`,
      'fix the edge cache line first',
    );
  if (purge.tookMs === undefined)
    return fail(
      'purge',
      `${purge.path}: the edge still served the old copy ${purge.limitMs / 1000} s after the purge (${purge.polls} reads; last ${purge.last ?? '(none)'})`,
      'a purge reaches other isolates through the purge records in KV, which Cloudflare says take up to 60 s or more to propagate (docs/purge.md): run again; if it persists, check the edge and the shield share one PURGES namespace',
    );
  return {
    id: 'purge',
    verdict: 'pass',
    says: `${purge.path}: the edge stopped serving the old copy ${(purge.tookMs / 1000).toFixed(2)} s after the purge was accepted (${purge.polls} ${purge.polls === 1 ? 'read' : 'reads'})`,
  };
}

function originBytesLine(stats: StatsSeen): Line {
  if ('skipped' in stats) return skipped('origin-bytes', stats.skipped);
  if ('refused' in stats)
    return fail('origin-bytes', stats.refused, "set STATS_TOKEN to the deployment's stats secret");
  const says = `the origin sent ${stats.originBytes} bytes to the shield during the run; the edge sent ${stats.edgeBytes} (stats.json before and after)`;
  if (stats.windowMoved)
    return info(
      'origin-bytes',
      `${says}; the stats window moved past minutes with traffic meanwhile, so these are low`,
      'run again: the figures are exact when no minute with traffic leaves the window during the run',
    );
  if (stats.edgeRequests < stats.requestsMade)
    return info(
      'origin-bytes',
      `${says}; only ${stats.edgeRequests} of this run's ${stats.requestsMade} requests were counted after ${(stats.waitedMs / 1000).toFixed(1)} s`,
      'the tiers flush their counts every STATS_FLUSH_MS: look again with `npm run stats` in a minute',
    );
  return { id: 'origin-bytes', verdict: 'pass', says };
}

/** What is wrong with a read of a whole object, or undefined. */
function badRead(read: Read): string | undefined {
  if (read.status === 0) return `no answer (${read.error ?? 'unknown'})`;
  if (read.status !== 200) return `answered ${read.status}, not 200`;
  if (read.error !== undefined) return `the body broke after ${read.bytes} bytes (${read.error})`;
  return undefined;
}

/**
 * What to do about reads the tiers failed (a 5xx: the tiers' own failure, whose Cache-Status detail names why, e.g.
 * `shield-unreachable`), or undefined when none of `reads` is one: the path is then what to check.
 */
function failedReadAdvice(...reads: Read[]): string | undefined {
  const failed = reads.find((read) => read.status >= 500);
  if (failed === undefined) return undefined;
  const detail = member(failed, 'edge')?.detail;
  const why = typeof detail === 'string' ? ` (the edge's detail: ${detail})` : '';
  return `the tiers failed the read${why}: fix what the tiers line says first, then run again`;
}

/** A line about the shield's cache when the read it would judge failed: nothing can be said of the cache. */
function unread(id: LineId, path: string, line: LineId): Line {
  return {
    id,
    verdict: 'skipped',
    says: `${path} was not read (see the ${LINE_TITLES[line]} line)`,
    advice: `fix the ${LINE_TITLES[line]} line first, then run again`,
  };
}

function fail(id: LineId, says: string, advice: string): Line {
  return { id, verdict: 'fail', says, advice };
}

function info(id: LineId, says: string, advice: string): Line {
  return { id, verdict: 'info', says, advice };
}

function skipped(id: LineId, advice: string): Line {
  return { id, verdict: 'skipped', says: 'not run', advice };
}
