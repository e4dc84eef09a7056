// The clock port: how far the local test stack has moved the clock freshness is judged by (its TEST_CLOCK
// binding); deployed, that binding does not exist and the offset is 0. Timeouts and signatures use the real time.

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
