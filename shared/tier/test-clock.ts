// A clock the local test stack can move forward, for freshness decisions only (Server-Timing,
// timeouts and S3 signatures always use the real time). Deployed, the TEST_CLOCK binding does
// not exist and the offset is 0; in tests it is a service answering the fake time in ms.

/** The part of a service binding the clock needs. */
export interface ClockService {
  fetch(request: Request): Promise<Response>;
}

/** How far the test clock is ahead of the real one (ms); 0 without one. */
export async function clockOffset(service: ClockService | undefined, realNow: number): Promise<number> {
  if (service === undefined) return 0;
  const answer = await service.fetch(new Request('http://test-clock.internal/now'));
  const fake = Number(await answer.text());
  return Number.isFinite(fake) ? fake - realNow : 0;
}
