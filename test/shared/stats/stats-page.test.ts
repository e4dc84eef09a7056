import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../../shared/stats/format.ts';
import { type MinuteBucket, mergeBatch } from '../../../shared/stats/minute-bucket.ts';
import { OUTCOMES } from '../../../shared/stats/record.ts';
import type { StatsJson } from '../../../shared/stats/stats-json.ts';
import { statsPage } from '../../../shared/stats/stats-page.ts';
import { statsView } from '../../../shared/stats/stats-view.ts';
import { mergeOperations, type R2Counts, type StoreOperations } from '../../../shared/stats/store-operations.ts';
import { BASE, batchOf, record } from './arbitraries.ts';

const NOW = BASE + 90_000;
const XSS = '<script>alert(1)</script>';
const ATTRIBUTE = '"><img src=x onerror=alert(1)>';

function sample(strings: { host?: string; key?: string; reason?: string; purge?: string } = {}): StatsJson {
  const batch = batchOf([
    record({ host: strings.host ?? 'cdn.example', bytesSent: 5_000_000, departed: true }),
    record({
      host: strings.host ?? 'cdn.example',
      outcome: 'miss',
      keyPrefix: strings.key ?? '/a.png',
      bytesFromNextHop: 100,
    }),
    record({ tier: 'shield', outcome: 'miss', bytesFromNextHop: 100, bytesFromOrigin: 100 }),
    record({ outcome: 'bypass', reason: strings.reason ?? 'method', bytesSent: 0 }),
    record({ tier: 'shield', outcome: 'error', reason: strings.reason ?? 'origin-unreachable', bytesSent: 0 }),
  ]);
  const purges = [
    { kind: 'tag', value: strings.purge ?? 'blog', at: BASE },
    { kind: 'everything', value: '', at: BASE - 5 },
  ];
  return statsView([...mergeBatch(new Map(), batch).values()], purges, NOW, 7);
}

/** One minute's bucket of `records`. */
function bucketOf(records: ReturnType<typeof record>[]): MinuteBucket {
  return [...mergeBatch(new Map(), batchOf(records)).values()][0] as MinuteBucket;
}

/** A shield flush's operations carrying the R2 tier's `counts`. */
function r2Operations(counts: R2Counts): StoreOperations {
  return mergeOperations(
    'shield',
    { kvLists: 0, kvWrites: 0, kvReads: 0 },
    { read: 1, written: 1 },
    undefined,
    undefined,
    counts,
  );
}

/** Tag names in the page, in order. */
const tags = (html: string): string[] =>
  [...html.matchAll(/<\/?([a-zA-Z!][\w-]*)/g)].map((match) => match[1]!.toLowerCase());
const markup = (html: string): Record<string, number> =>
  Object.fromEntries(['<', '>', '"', "'"].map((char) => [char, html.split(char).length - 1]));

describe('statsPage', () => {
  const page = statsPage(sample());

  it('is one whole HTML document, readable on a phone and in the dark', () => {
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page).toContain('<meta charset="utf-8">');
    expect(page).toContain('@media (prefers-color-scheme: dark)');
    expect(page).toContain('max-width');
    expect(page).toContain('min-height: 44px');
    expect(page.trimEnd().endsWith('</html>')).toBe(true);
  });

  it('needs nothing else: no script, no external asset, no link leaving the deployment', () => {
    expect(tags(page)).not.toContain('script');
    expect(tags(page)).not.toContain('link');
    expect(tags(page)).not.toContain('img');
    expect(page).not.toMatch(/\bsrc=|url\(|@import|https?:\/\//);
    expect([...page.matchAll(/href="([^"]*)"/g)].map((match) => match[1])).toEqual(['stats', 'stats.json']);
  });

  it("shows each tier's hit ratio and byte hit ratio as big numbers, and the money saved", () => {
    expect(page).toMatch(/<span class="value">33\.3%<\/span><span class="label">hit ratio<\/span>/);
    expect(page).toMatch(/<span class="value">0\.0%<\/span><span class="label">hit ratio<\/span>/);
    expect(page).toContain('<span class="value">$0.0000</span><span class="label">saved</span>');
    expect(page).toContain('<dt>fetched from the origin</dt><dd>100 B</dd>');
    expect(page).toContain('$7.00 per TB');
  });

  it('shows per tier the requests whose client left before the body ended', () => {
    expect(page.match(/<dt>left before the body ended<\/dt><dd>(\d+)<\/dd>/g)).toEqual([
      '<dt>left before the body ended</dt><dd>1</dd>',
      '<dt>left before the body ended</dt><dd>0</dd>',
    ]);
  });

  it('shows no R2 card, line, column or count where the R2 tier made no record: the shield fetched from the origin', () => {
    expect(page).not.toContain('<article class="card r2">');
    expect(page).not.toContain('class="line tone-r2"');
    expect(page).not.toContain('swatch tone-r2');
    expect(page).not.toContain('<th scope="col" class="number">r2</th>');
    expect(page).not.toContain('<dt>R2 gets, puts, lists</dt>');
    expect(page.match(/<dt>bytes from the [a-z0-9]+<\/dt>/g)).toEqual([
      '<dt>bytes from the shield</dt>',
      '<dt>bytes from the origin</dt>',
    ]);
  });

  it('shows the R2 tier where it made records: its card behind the shield, its lines, its column, its operations', () => {
    const r2 = { r2Gets: 12, r2Puts: 3, r2PutBytes: 3_000_000, r2Lists: 1, r2StoredByteSeconds: 3_000_000 * 2_592_000 };
    const withR2 = statsPage(
      statsView([{ ...bucketOf([record({ tier: 'r2', outcome: 'hit' })]), operations: r2Operations(r2) }], [], NOW, 7),
    );
    expect(withR2).toContain('<article class="card r2"><h3>R2</h3>');
    expect(withR2.match(/<dt>bytes from the [a-z0-9]+<\/dt>/g)).toEqual([
      '<dt>bytes from the shield</dt>',
      '<dt>bytes from the r2</dt>',
      '<dt>bytes from the origin</dt>',
    ]);
    expect(withR2.match(/class="line tone-r2"/g)).toHaveLength(2);
    expect(withR2.match(/<span class="swatch tone-r2" aria-hidden="true"><\/span>r2<\/li>/g)).toHaveLength(2);
    expect(withR2).toContain('<th scope="col" class="number">r2</th>');
    expect(withR2).toContain('<dt>R2 gets, puts, lists</dt><dd>12, 3, 1</dd>');
    // 3 MB put, each kept 30 days: 3 MB-months committed.
    expect(withR2).toContain('<dt>R2 bytes put (storage committed)</dt><dd>3.00 MB (3.00 MB-months)</dd>');
  });

  it("prices and shows the R2 tier's operations without a card where it made no record (only its walk ran)", () => {
    const walked = { r2Gets: 0, r2Puts: 0, r2PutBytes: 0, r2Lists: 4, r2StoredByteSeconds: 0 };
    const view = statsView([{ ...bucketOf([record({})]), operations: r2Operations(walked) }], [], NOW, 7);
    const html = statsPage(view);
    expect(html).not.toContain('<article class="card r2">');
    expect(html).toContain('<dt>R2 gets, puts, lists</dt><dd>0, 0, 4</dd>');
    expect(html).toContain('<td>R2 Class A operations</td>');
  });

  it('charts requests and bytes per minute, one line per tier, each with a title', () => {
    expect(page.match(/<svg /g)).toHaveLength(2);
    expect(page).toContain('<title id="requests-chart-title">Requests per minute</title>');
    expect(page).toContain('<title id="bytes-chart-title">Bytes sent per minute</title>');
    expect(page.match(/class="line tone-edge"/g)).toHaveLength(2);
    expect(page.match(/class="line tone-shield"/g)).toHaveLength(2);
  });

  it('lists misses, hosts, bypass reasons, errors, purges and every outcome', () => {
    for (const caption of [
      'Keys the edge misses most',
      'Hosts at the edge',
      'Why requests bypassed the cache',
      'Errors',
      'Recent purges',
      'Requests by outcome',
    ]) {
      expect(page).toContain(`<caption>${caption}</caption>`);
    }
    for (const outcome of OUTCOMES) expect(page).toContain(`<td>${outcome}</td>`);
    expect(page).toContain('<td class="key">/a.png</td>');
    expect(page).toContain('<td class="key">origin-unreachable</td>');
    expect(page).toContain('<td class="key">(everything)</td>');
  });

  it("shows what the window costs as a month at its rate: tiercache against the origin's egress alone, and the bill line by line", () => {
    const { cost } = sample();
    expect(page).toContain('<h2 id="cost-heading">What it costs</h2>');
    expect(page).toContain(
      `<span class="value">$${cost.month.totalUSD.toFixed(2)}</span><span class="label">with tiercache</span>`,
    );
    expect(page).toContain('<span class="label">origin egress alone</span>');
    expect(page).toContain('<caption>The month, line by line</caption>');
    for (const line of cost.month.lines) expect(page).toContain(`<td>${line.item}</td>`);
    expect(page).toContain('<dt>Durable Object requests counted</dt>');
    expect(page).toContain('<dt>KV list requests counted</dt>');
    expect(page).toContain(
      `each line past its monthly allowance, at the Workers Paid prices read ${cost.pricesReadAt}`,
    );
    expect(page).toContain('docs/costs.md');
  });

  it("beside it, Cloudflare's cache in front of the origin, as an estimate labelled as one, and tiercache against it", () => {
    const { cost } = sample();
    const { lowUSD, highUSD } = cost.month.cloudflareCache;
    expect(page).toContain(
      `<dt>Cloudflare&#39;s cache in front (estimate)</dt><dd>${formatUsd(lowUSD)} to ${formatUsd(highUSD)}</dd>`,
    );
    expect(page).toMatch(/<dt>tiercache against it<\/dt><dd>−\$[\d.]+ to −\$[\d.]+<\/dd>/);
    expect(page).toContain("Cloudflare's cache in front: nothing over 512 MB cached");
  });

  it('says when tiercache costs more than the egress it saves, rather than a negative saving', () => {
    // One small hit an hour: the subscription alone is more than its egress.
    const small = statsPage(
      statsView([...mergeBatch(new Map(), batchOf([record({ bytesSent: 100 })])).values()], [], NOW, 7),
    );
    expect(small).toMatch(/<dt>costs more than egress alone<\/dt><dd>\$5\.0\d<\/dd>/);
    expect(small).not.toContain('<dt>saved</dt>');
  });

  it('says when it was made, and in which units', () => {
    expect(page).toContain(`<time datetime="${new Date(NOW).toISOString()}">2026-02-03 14:01:30Z</time>`);
    expect(page).toContain('SI units (1 kB = 1,000 B');
  });

  it('says "none" rather than draw an empty table, for a window with nothing in it', () => {
    const empty = statsPage(statsView([], [], NOW, 7));
    expect(empty).toContain('No misses in the last 60 minutes.');
    expect(empty).toContain('No purges recorded.');
    expect(empty).toContain('<span class="value">—</span><span class="label">hit ratio</span>');
  });

  it('escapes an XSS attempt in a host, a key, a reason and a purge value', () => {
    const hostile = statsPage(sample({ host: XSS, key: `/${ATTRIBUTE}`, reason: `${XSS}'`, purge: ATTRIBUTE }));
    expect(tags(hostile)).toEqual(tags(statsPage(sample({ host: 'h', key: '/k', reason: 'r', purge: 'p' }))));
    expect(hostile).not.toContain('<script>');
    expect(hostile).not.toContain('<img');
    expect(hostile).toContain('<td class="key">&lt;script&gt;alert(1)&lt;/script&gt;</td>');
    expect(hostile).toContain('<td class="key">/&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</td>');
    expect(hostile).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&#39;');
  });

  it('takes no markup from the data, whatever strings it holds', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(text, text, text, text, (host, key, reason, purge) => {
        const plain = statsPage(sample({ host: 'h', key: '/k', reason: 'r', purge: 'p' }));
        const given = statsPage(
          sample({ host: host || 'h', key: key || '/k', reason: reason || 'r', purge: purge || 'p' }),
        );
        // The data adds no tag, no bracket and no quote: every one of them in the page is the page's own.
        expect(markup(given)).toEqual(markup(plain));
      }),
      { numRuns: 150 },
    );
  });
});
