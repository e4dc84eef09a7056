// What `npm run purge` reads besides its flags: targets one per line, from a file or standard input (a deploy
// pipeline's list of changed files), and the batches they are sent in.

import { MAX_PURGE_VALUES } from '../shared/purge/purge-rules.ts';

/** What a purge names: each list in the order given. */
export interface PurgeTargets {
  urls: string[];
  prefixes: string[];
  tags: string[];
  everything: boolean;
  /** `--soft`: the whole request is a soft purge (docs/purge.md "Soft purge"). */
  soft: boolean;
}

/**
 * One target per line: a path or URL purges that object, `prefix:/img/` every path under it, `tag:brand` every
 * response tagged so, `everything` everything; blank lines and lines starting with `#` are skipped. A line that is
 * none of these is refused with its number, so a typo never purges something else.
 */
export function parseTargetLines(text: string): PurgeTargets | { error: string } {
  const targets: PurgeTargets = { urls: [], prefixes: [], tags: [], everything: false, soft: false };
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const tagged = /^(prefix|tag):\s*(.*)$/i.exec(line);
    if (tagged !== null) {
      const value = tagged[2]?.trim() ?? '';
      if (value === '') return { error: `line ${i + 1}: "${tagged[1]}:" names nothing` };
      (tagged[1]?.toLowerCase() === 'prefix' ? targets.prefixes : targets.tags).push(value);
    } else if (line.toLowerCase() === 'everything') targets.everything = true;
    else if (line.startsWith('/') || /^https?:\/\//i.test(line)) targets.urls.push(line);
    else
      return {
        error: `line ${i + 1}: expected a path, a URL, prefix:…, tag:… or everything, got ${JSON.stringify(line.slice(0, 80))}`,
      };
  }
  return targets;
}

/** `b` after `a`, list by list. */
export function joinTargets(a: PurgeTargets, b: PurgeTargets): PurgeTargets {
  return {
    urls: [...a.urls, ...b.urls],
    prefixes: [...a.prefixes, ...b.prefixes],
    tags: [...a.tags, ...b.tags],
    everything: a.everything || b.everything,
    soft: a.soft || b.soft,
  };
}

/** How many values the targets name (everything is none: it is a flag). */
export function targetCount(targets: PurgeTargets): number {
  return targets.urls.length + targets.prefixes.length + targets.tags.length;
}

/**
 * The targets in requests the edge takes (at most MAX_PURGE_VALUES values each, shared/purge/purge-rules.ts), in
 * order; `everything` goes with the first.
 */
export function purgeBatches(targets: PurgeTargets, limit = MAX_PURGE_VALUES): PurgeTargets[] {
  const values: ['urls' | 'prefixes' | 'tags', string][] = [
    ...targets.urls.map((value): ['urls', string] => ['urls', value]),
    ...targets.prefixes.map((value): ['prefixes', string] => ['prefixes', value]),
    ...targets.tags.map((value): ['tags', string] => ['tags', value]),
  ];
  const batches: PurgeTargets[] = [];
  for (let at = 0; at < values.length || batches.length === 0; at += limit) {
    const batch: PurgeTargets = {
      soft: targets.soft,
      urls: [],
      prefixes: [],
      tags: [],
      everything: batches.length === 0 && targets.everything,
    };
    for (const [list, value] of values.slice(at, at + limit)) batch[list].push(value);
    batches.push(batch);
  }
  return batches;
}
