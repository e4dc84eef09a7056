// What the suite makes of wrk's output (bench/load/wrk.ts: the JSON line wrk-load.lua's done()
// prints) and of a cold phase's first answer joined to its load (withFirstAnswer). No process.
import { describe, expect, it } from 'vitest';
import { withFirstAnswer } from '../../../bench/load/run-load.ts';
import { parseWrkJson, wrkLoadResult } from '../../../bench/load/wrk.ts';

const WRK_STDOUT = `Running 2s test @ http://127.0.0.1:8080/
tiercache-wrk-json: {"requests":500,"bytes":52500000,"durationUs":2100000,"elapsedUs":2000000,"threads":2,"finished":2,"sent":500,"answered":500,"lost":0,"latencySumUs":400000,"non2xx":0,"countedStatuses":false,"errors":{"connect":0,"read":2,"write":0,"timeout":1,"status":3},"latencyUs":{"mean":635.91,"p50":580,"p99":1950,"max":12350}}
`;
const summary = parseWrkJson(WRK_STDOUT);

describe('wrkLoadResult', () => {
  const parsed = wrkLoadResult(summary, { requests: 500, bodyBytes: 105_000 });

  it("counts a fixed count's errors as sent and not answered, and keeps wrk's socket errors for the record", () => {
    expect({
      requests: parsed.requests,
      sent: parsed.sent,
      errors: parsed.errors,
      socketErrors: parsed.socketErrors,
    }).toEqual({ requests: 500, sent: 500, errors: 0, socketErrors: 3 });
    expect(wrkLoadResult({ ...summary, requests: 498 }, { requests: 500 }).errors).toBe(2);
  });

  it("takes a fixed count's time from the script's clock, a duration run's from wrk", () => {
    expect(parsed.elapsedSec).toBe(2);
    expect(wrkLoadResult(summary, {}).elapsedSec).toBe(2.1);
  });

  it("counts statuses as wrk's own ≥ 400 count plus the bodies missing from the bytes read", () => {
    // 500 × 105,000 bytes read: no short bodies.
    expect(parsed.non2xx).toBe(3);
    // 500,000 bytes short of 500 × 106,000: 5 bodies missing.
    expect(wrkLoadResult(summary, { requests: 500, bodyBytes: 106_000 }).non2xx).toBe(3 + 5);
  });

  it("takes a fixed count's mean from the script (400 ms over 500), p99 and max from wrk; a duration run's mean from wrk", () => {
    expect(parsed.latency).toMatchObject({ meanMs: 0.8, p99Ms: 1.95, maxMs: 12.35 });
    expect(wrkLoadResult(summary, {}).latency.meanMs).toBeCloseTo(0.63591, 9);
  });

  it('refuses output without the summary line', () => {
    expect(() => parseWrkJson('Running 2s test @ http://127.0.0.1:8080/\n')).toThrow(/no summary line/);
  });
});

describe('withFirstAnswer', () => {
  // A cold phase: one GET alone (200 ms, 105,000 bytes), then 499 under load.
  const rest = wrkLoadResult(
    { ...summary, requests: 499, sent: 499, bytes: 499 * 105_000 },
    { requests: 499, bodyBytes: 105_000 },
  );
  const whole = withFirstAnswer({ status: 200, bytes: 105_000, totalMs: 200 }, rest);

  it('adds up counts, bytes and times', () => {
    expect({ requests: whole.requests, sent: whole.sent, bytes: whole.bytes, elapsedSec: whole.elapsedSec }).toEqual({
      requests: 500,
      sent: 500,
      bytes: 500 * 105_000,
      elapsedSec: 2.2,
    });
  });

  it("takes the first answer into the mean and max; p99 stays the load's", () => {
    expect(whole.latency.meanMs).toBeCloseTo((200 + rest.latency.meanMs * 499) / 500, 9);
    expect(whole.latency.maxMs).toBe(200);
    expect(whole.latency.p99Ms).toBe(1.95);
  });

  it('counts a first answer outside 2xx', () => {
    expect(withFirstAnswer({ status: 304, bytes: 0, totalMs: 1 }, rest).non2xx).toBe(rest.non2xx + 1);
  });
});
