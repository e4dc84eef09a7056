// What a tier knows of a request before it routes it, the same at every tier: each entry sets it (hono's
// Variables) and hands it to its object-request.ts.

export interface RequestFacts {
  /** When the request arrived (ms epoch). */
  started: number;
  /** How far the test clock is ahead (ms); 0 deployed. */
  clockOffset: number;
  url: URL;
}
