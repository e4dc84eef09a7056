// The edge's 200 to a purge (worker/purge.ts): what it accepted, when (`at`, ms epoch), and the
// bound on reaching every location (`reachesEveryLocationWithin`, "65s": KV's propagation plus
// the isolates' refresh, shared/purge/purge-store.ts). Printed as the moment it is done everywhere.

import type { PurgeRequest } from '../shared/purge/purge.ts';
import { formatTime } from '../shared/stats/format.ts';
import { CliFailure } from './cli-failure.ts';
import { printable } from './printable.ts';

export interface PurgeAnswer {
  purged: PurgeRequest;
  at: number;
  reachesEveryLocationWithin: string;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parsePurgeAnswer(text: string, from: string): PurgeAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliFailure(
      `${from} answered 200 with something that is not JSON (is it a tiercache edge?): ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
  const answer = value as Partial<PurgeAnswer> | null;
  const purged = answer?.purged;
  const lists =
    purged !== undefined && (['urls', 'prefixes', 'tags'] as const).every((name) => Array.isArray(purged[name]));
  if (!lists || typeof answer?.at !== 'number' || typeof answer.reachesEveryLocationWithin !== 'string') {
    throw new CliFailure(
      `${from} answered JSON that is not a purge's answer ({purged, at, reachesEveryLocationWithin}): ${JSON.stringify(text.slice(0, 120))}`,
    );
  }
  return answer as PurgeAnswer;
}

/** A duration as the edge writes it (`65s`, `500ms`, `2m`) in ms; undefined if it is none of those. */
export function durationMs(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const unit = match?.[2] === undefined ? undefined : UNIT_MS[match[2]];
  return match?.[1] === undefined || unit === undefined ? undefined : Number(match[1]) * unit;
}

export function renderPurgeAnswer(answer: PurgeAnswer): string {
  const { purged, at, reachesEveryLocationWithin: bound } = answer;
  const lines = [`purge accepted at ${formatTime(at)}`];
  const named: [string, readonly string[]][] = [
    ['urls', purged.urls],
    ['prefixes', purged.prefixes],
    ['tags', purged.tags],
  ];
  for (const [name, values] of named) {
    if (values.length > 0) lines.push(`  ${`${name}:`.padEnd(12)}${values.map(printable).join(', ')}`);
  }
  if (purged.everything) lines.push(`  ${'everything:'.padEnd(12)}yes`);
  const within = durationMs(bound);
  lines.push(
    within === undefined
      ? `reaches every location within ${printable(bound)}`
      : `reaches every location by ${formatTime(at + within)} (within ${printable(bound)})`,
  );
  return lines.join('\n');
}
