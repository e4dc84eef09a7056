// The published prices the cost model charges (docs/costs.md): Cloudflare's Workers Paid plan, R2 (the R2 tier's) and
// Storj's egress, each price named once with the page it was read from and when.

/** When every price below was read from its page. */
export const PRICES_READ_AT = '2026-12-01';

/** A price per unit past what the plan includes each month. */
export interface MeteredPrice {
  /** USD per `per` units past the allowance. */
  usd: number;
  per: number;
  /** Units included per month per account: the plan's allowance, as the page gives it. */
  includedPerMonth: number;
  /** The page that says so. */
  source: string;
}

export interface PriceTable {
  readAt: string;
  /** Workers Paid: the minimum monthly charge, which carries the allowances below. */
  subscription: { usdPerMonth: number; source: string };
  workersRequests: MeteredPrice;
  workersCpuMs: MeteredPrice;
  durableObjectRequests: MeteredPrice;
  /** GB-s of 128 MB while an object is active. */
  durableObjectGbSeconds: MeteredPrice;
  durableObjectRowsRead: MeteredPrice;
  durableObjectRowsWritten: MeteredPrice;
  kvListRequests: MeteredPrice;
  kvReadRequests: MeteredPrice;
  kvWriteRequests: MeteredPrice;
  analyticsDataPoints: MeteredPrice;
  logsIngestedGb: MeteredPrice;
  logsStoredGbMonths: MeteredPrice;
  /** R2 Standard storage, per GB-month (10^9 bytes kept 30 days): the R2 tier's (shield/r2/). */
  r2StorageGbMonths: MeteredPrice;
  /** R2 Class A operations: a put, and a list (the R2 tier's sweep). */
  r2ClassA: MeteredPrice;
  /** R2 Class B operations: a get, a head. */
  r2ClassB: MeteredPrice;
  /** The origin's egress, USD per TB (10^12 bytes). */
  originEgressPerTB: { usd: number; source: string };
}

const WORKERS = 'https://developers.cloudflare.com/workers/platform/pricing/';
const DURABLE_OBJECTS = 'https://developers.cloudflare.com/durable-objects/platform/pricing/';
const KV = 'https://developers.cloudflare.com/kv/platform/pricing/';
const ANALYTICS = 'https://developers.cloudflare.com/analytics/analytics-engine/pricing/';
const OBSERVABILITY = 'https://developers.cloudflare.com/observability/pricing/';
const R2 = 'https://developers.cloudflare.com/r2/pricing/';
const STORJ = 'https://storj.dev/dcs/pricing';
const MILLION = 1_000_000;

export const PUBLISHED_PRICES: PriceTable = {
  readAt: PRICES_READ_AT,
  // "a minimum charge of $5 USD per month for an account"
  subscription: { usdPerMonth: 5, source: WORKERS },
  // Standard usage model: "10 million included per month +$0.30 per additional million"; inbound
  // requests only: subrequests and service-binding calls are not billed (the shield's are free).
  workersRequests: { usd: 0.3, per: MILLION, includedPerMonth: 10 * MILLION, source: WORKERS },
  // "30 million CPU milliseconds included per month +$0.02 per additional million CPU milliseconds",
  // across both workers of a service-binding call.
  workersCpuMs: { usd: 0.02, per: MILLION, includedPerMonth: 30 * MILLION, source: WORKERS },
  // "1 million, + $0.15/million", HTTP requests and RPC sessions alike.
  durableObjectRequests: { usd: 0.15, per: MILLION, includedPerMonth: MILLION, source: DURABLE_OBJECTS },
  // "400,000 GB-s, + $12.50/million GB-s", wall-clock while active, billed as 128 MB.
  durableObjectGbSeconds: { usd: 12.5, per: MILLION, includedPerMonth: 400_000, source: DURABLE_OBJECTS },
  // SQLite storage backend: "First 25 billion / month included + $0.001 / million rows"; the
  // key-value methods (get, put, delete, list) are billed as rows read and rows written.
  durableObjectRowsRead: { usd: 0.001, per: MILLION, includedPerMonth: 25_000 * MILLION, source: DURABLE_OBJECTS },
  // "First 50 million / month included + $1.00 / million rows"; deletes count as rows written.
  durableObjectRowsWritten: { usd: 1, per: MILLION, includedPerMonth: 50 * MILLION, source: DURABLE_OBJECTS },
  // "List requests: 1 million/month, + $5.00/million" (the purge list is read with list()).
  kvListRequests: { usd: 5, per: MILLION, includedPerMonth: MILLION, source: KV },
  // "Read requests: 10 million/month, + $0.50/million" (a get of a purge batch too large for its key's
  // metadata, or of a snapshot).
  kvReadRequests: { usd: 0.5, per: MILLION, includedPerMonth: 10 * MILLION, source: KV },
  // "Write requests: 1 million/month, + $5.00/million" (one per purge request, and the occasional
  // snapshot); "Delete requests" are priced the same, so a delete is counted as a write.
  kvWriteRequests: { usd: 5, per: MILLION, includedPerMonth: MILLION, source: KV },
  // "10 million included per month (+$0.25 per additional million)"; the page says it is not
  // billed yet and gives the price "so that you can estimate": counted at it.
  analyticsDataPoints: { usd: 0.25, per: MILLION, includedPerMonth: 10 * MILLION, source: ANALYTICS },
  // Workers Logs, on Cloudflare Observability pricing from 2026-12-01: "50 GB per billing
  // cycle" ingested, "$0.25 per GB"; "12 GB-month per billing cycle" stored, "$0.10 per GB-month".
  logsIngestedGb: { usd: 0.25, per: 1, includedPerMonth: 50, source: OBSERVABILITY },
  logsStoredGbMonths: { usd: 0.1, per: 1, includedPerMonth: 12, source: OBSERVABILITY },
  // Standard storage: "$0.015 / GB-month", free tier "10 GB-month / month"; "Class A Operations | $4.50 / million
  // requests" (PutObject, ListObjects), "1 million requests / month" free; "Class B Operations | $0.36 / million
  // requests" (GetObject, HeadObject), "10 million requests / month" free. DeleteObject is free; egress is free.
  r2StorageGbMonths: { usd: 0.015, per: 1, includedPerMonth: 10, source: R2 },
  r2ClassA: { usd: 4.5, per: MILLION, includedPerMonth: MILLION, source: R2 },
  r2ClassB: { usd: 0.36, per: MILLION, includedPerMonth: 10 * MILLION, source: R2 },
  // "$7.00 per TB for egress" ($0.007 per GB), the price since 2026-07-01.
  originEgressPerTB: { usd: 7, source: STORJ },
};
