// The stats page's "What it costs" (stats-cost.ts, docs/costs.md): the window's traffic as a
// month at its rate, tiercache and the origin's egress behind it against the origin's egress
// alone, and each line of the Workers Paid bill. No link leaves the page: the prices' sources
// are in docs/costs.md, which the note names.

import { formatCompact, formatCount, formatUsd } from './format.ts';
import { escapeHtml } from './html-escape.ts';
import { bigNumber, factList } from './html-facts.ts';
import { htmlTable } from './html-table.ts';
import type { StatsJson } from './stats-json.ts';

export function costSection(stats: StatsJson): string {
  const { cost } = stats;
  const { month } = cost;
  const counted = cost.windowOperations;
  const saved =
    month.savedUSD >= 0
      ? ['saved', formatUsd(month.savedUSD)]
      : ['costs more than egress alone', formatUsd(-month.savedUSD)];
  const card = [
    '<article class="card cost"><h3>A month at this rate</h3>',
    `<div class="bigs">${bigNumber(formatUsd(month.totalUSD), 'with tiercache')}${bigNumber(formatUsd(month.egressAloneUSD), 'origin egress alone')}</div>`,
    factList([
      ['Workers Paid, all lines', formatUsd(month.platformUSD)],
      ['of it the subscription', formatUsd(month.subscriptionUSD)],
      ['origin egress behind tiercache', formatUsd(month.originEgressUSD)],
      [saved[0] ?? '', saved[1] ?? ''],
      ['Durable Object requests counted', formatCount(counted.durableObjectRequests)],
      ['KV list requests counted', formatCount(counted.kvListRequests)],
    ]),
    '</article>',
  ].join('');
  const lines = htmlTable({
    caption: 'The month, line by line',
    // What each line's allowance is stays in stats.json: a phone has room for three columns.
    columns: [{ title: 'item' }, { title: "a month's use", kind: 'number' }, { title: 'USD', kind: 'number' }],
    rows: month.lines.map((line) => [line.item, `${formatCompact(line.quantity)} ${line.unit}`, formatUsd(line.usd)]),
    empty: 'Nothing counted.',
  });
  return [
    '<section aria-labelledby="cost-heading"><h2 id="cost-heading">What it costs</h2>',
    `<div class="grid-cost">${card}${lines}</div>`,
    `<p class="note">The last ${formatCount(stats.windowMinutes)} minutes as 30 days at the same rate, each line past its monthly allowance, at the Workers Paid prices read ${escapeHtml(cost.pricesReadAt)} and the origin's ${formatUsd(stats.egress.pricePerTB)} per TB (docs/costs.md). `,
    'CPU time is an upper bound measured on the local runtime, every edge hit priced as a Cache API hit; Durable Object and KV requests are the ones the stats store counted.</p></section>',
  ].join('');
}
