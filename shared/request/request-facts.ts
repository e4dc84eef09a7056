// What a tier knows of a request before it routes it, the same at every tier: each entry sets it (hono's
// Variables) and hands it to its tier's flows (shared/tier/tier.ts).

export interface RequestFacts {
  /** When the request arrived (ms epoch, the platform's time): what its durations are measured from. */
  started: number;
  /**
   * When it arrived on the tier's clock (shared/clock/clock.ts), read once for the request: what its freshness and
   * purges are judged at.
   */
  now: number;
  url: URL;
}
