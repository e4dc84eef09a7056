// A month's use (usage.ts) at the published prices (prices.ts), against the origin's egress (docs/costs.md):
// a line per metered thing (R2's where the R2 tier is on), what the plan includes of it, what is left to pay, and the
// totals.

import type { MeteredPrice, PriceTable } from './prices.ts';
import { MONTH_MS, scaledUsage, type Usage } from './usage.ts';

type CostItem =
  | 'Workers requests'
  | 'Workers CPU, edge'
  | 'Workers CPU, shield'
  | 'Durable Object requests'
  | 'Durable Object duration'
  | 'Durable Object rows read'
  | 'Durable Object rows written'
  | 'KV list requests'
  | 'KV read requests'
  | 'KV write requests'
  | 'Analytics Engine data points'
  | 'Workers Logs ingested'
  | 'Workers Logs stored'
  | 'R2 storage'
  | 'R2 Class A operations'
  | 'R2 Class B operations';

export interface CostLine {
  item: CostItem;
  /** How much of it a month uses. */
  quantity: number;
  unit: string;
  /** What the plan includes of it (0 without the allowances). */
  included: number;
  /** USD for the month. */
  usd: number;
  source: string;
}

export interface CostEstimate {
  /** The month's use this prices. */
  usage: Usage;
  /**
   * With the allowances (the default), the account runs tiercache alone: the Workers Paid subscription
   * is paid and every allowance is tiercache's. Without them, the answer is what tiercache adds to an
   * account whose allowances other work already uses (every unit at its price, no subscription counted).
   */
  allowances: boolean;
  lines: CostLine[];
  /** The Workers Paid subscription (0 without the allowances). */
  subscriptionUSD: number;
  /** Subscription and lines. */
  platformUSD: number;
  /** The origin's egress with tiercache in front: what the shield fetched. */
  originEgressUSD: number;
  /** The origin's egress without it: every byte the edge sent, from the origin. */
  egressAloneUSD: number;
  /** platformUSD + originEgressUSD. */
  totalUSD: number;
  /** egressAloneUSD − totalUSD: what tiercache saves (negative: what it costs more). */
  savedUSD: number;
  pricesReadAt: string;
}

/** Prices a month's use; `usage` covering another period is scaled to a month first. */
export function costOf(usage: Usage, prices: PriceTable, options: { allowances?: boolean } = {}): CostEstimate {
  const month = monthOf(usage);
  const allowances = options.allowances ?? true;
  const line = (
    item: CostItem,
    quantity: number,
    unit: string,
    price: MeteredPrice,
    included = allowances ? price.includedPerMonth : 0,
  ): CostLine => ({
    item,
    quantity,
    unit,
    included,
    usd: (Math.max(0, quantity - included) / price.per) * price.usd,
    source: price.source,
  });
  // The plan's CPU allowance is the account's, shared by both workers: the edge takes it first.
  const cpuIncluded = allowances ? prices.workersCpuMs.includedPerMonth : 0;
  const lines: CostLine[] = [
    line('Workers requests', month.workersRequests, 'requests', prices.workersRequests),
    line('Workers CPU, edge', month.cpuMs.edge, 'CPU ms', prices.workersCpuMs, cpuIncluded),
    line(
      'Workers CPU, shield',
      month.cpuMs.shield,
      'CPU ms',
      prices.workersCpuMs,
      Math.max(0, cpuIncluded - month.cpuMs.edge),
    ),
    line('Durable Object requests', month.durableObjectRequests, 'requests', prices.durableObjectRequests),
    line('Durable Object duration', month.durableObjectGbSeconds, 'GB-s', prices.durableObjectGbSeconds),
    line('Durable Object rows read', month.durableObjectRowsRead, 'rows', prices.durableObjectRowsRead),
    line('Durable Object rows written', month.durableObjectRowsWritten, 'rows', prices.durableObjectRowsWritten),
    line('KV list requests', month.kvListRequests, 'requests', prices.kvListRequests),
    line('KV read requests', month.kvReadRequests, 'requests', prices.kvReadRequests),
    line('KV write requests', month.kvWriteRequests, 'requests', prices.kvWriteRequests),
    line('Analytics Engine data points', month.analyticsDataPoints, 'points', prices.analyticsDataPoints),
    line('Workers Logs ingested', month.logsIngestedGb, 'GB', prices.logsIngestedGb),
    line('Workers Logs stored', month.logsStoredGbMonths, 'GB-months', prices.logsStoredGbMonths),
    // The R2 tier's, where it is on: its bucket's storage, its puts and lists, its gets (egress from R2 is free).
    ...(month.r2 === undefined
      ? []
      : [
          line('R2 storage', month.r2.storageGbMonths, 'GB-months', prices.r2StorageGbMonths),
          line('R2 Class A operations', month.r2.classA, 'requests', prices.r2ClassA),
          line('R2 Class B operations', month.r2.classB, 'requests', prices.r2ClassB),
        ]),
  ];
  const subscriptionUSD = allowances ? prices.subscription.usdPerMonth : 0;
  const platformUSD = subscriptionUSD + lines.reduce((sum, item) => sum + item.usd, 0);
  const originEgressUSD = (month.originBytes / 1e12) * prices.originEgressPerTB.usd;
  const egressAloneUSD = (month.servedBytes / 1e12) * prices.originEgressPerTB.usd;
  const totalUSD = platformUSD + originEgressUSD;
  return {
    usage: month,
    allowances,
    lines,
    subscriptionUSD,
    platformUSD,
    originEgressUSD,
    egressAloneUSD,
    totalUSD,
    savedUSD: egressAloneUSD - totalUSD,
    pricesReadAt: prices.readAt,
  };
}

function monthOf(usage: Usage): Usage {
  return usage.periodMs === MONTH_MS || !(usage.periodMs > 0) ? usage : scaledUsage(usage, MONTH_MS / usage.periodMs);
}
