// One scripted client request on a fresh connection: a GET (ranged or not) or a HEAD, read to its end or cut after
// some bytes by destroying the socket (as a player does when it seeks), every byte read checked against the object.

import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';

const DEFAULT_TIMEOUT_MS = 120_000;

export interface ReadPlan {
  /** What the step is, for the table: `bytes=0- cut at 1 MiB`. */
  label: string;
  method?: 'GET' | 'HEAD';
  /** The Range field sent; absent: the whole object. */
  range?: string;
  /** The object's bytes the answer must carry, both ends inclusive (for a HEAD: what it describes). */
  expect: { start: number; end: number };
  /** The client closes the connection once it has read this many body bytes. Absent: read to the end. */
  cutAfter?: number;
  /** Sent this long after its step began (a request arriving while the others are under way). */
  delayMs?: number;
}

export interface ReadResult {
  label: string;
  status: number;
  /** Body bytes read. */
  bytes: number;
  /** The client cut it (as planned). */
  cut: boolean;
  /** Status, Content-Range or Content-Length and every byte read as the object has them at their position. */
  exact: boolean;
  /** What was not exact, or the network error. */
  problem?: string;
  ms: number;
}

/** Runs `plan` against `url`; never rejects (a failure is a result that is not exact). */
export async function readRange(url: string, object: Uint8Array, plan: ReadPlan, timeoutMs = DEFAULT_TIMEOUT_MS) {
  if (plan.delayMs !== undefined) await delay(plan.delayMs);
  return new Promise<ReadResult>((resolve) => {
    const started = performance.now();
    const method = plan.method ?? 'GET';
    const wanted = plan.expect.end - plan.expect.start + 1;
    let bytes = 0;
    let status = 0;
    let problem: string | undefined;
    let settled = false;
    const finish = (cut: boolean, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const complete = cut || method === 'HEAD' || bytes === wanted;
      problem ??= error ?? (complete ? undefined : `${bytes} of ${wanted} body bytes`);
      resolve({
        label: plan.label,
        status,
        bytes,
        cut,
        exact: problem === undefined,
        ms: performance.now() - started,
        ...(problem !== undefined && { problem }),
      });
    };
    const pending = request(
      url,
      { method, agent: false, headers: plan.range ? { range: plan.range } : {} },
      (response) => {
        status = response.statusCode ?? 0;
        problem = headProblem(plan, status, response.headers, object.length);
        response.on('data', (chunk: Buffer) => {
          const at = plan.expect.start + bytes;
          if (problem === undefined && !chunk.equals(object.subarray(at, at + chunk.length)))
            problem = `bytes differ from the object's within ${at}–${at + chunk.length - 1}`;
          bytes += chunk.length;
          if (plan.cutAfter !== undefined && bytes >= plan.cutAfter) {
            pending.destroy();
            finish(true);
          }
        });
        response.on('end', () => finish(false));
        response.on('error', (error) => finish(false, error.message));
      },
    );
    const timer = setTimeout(() => {
      pending.destroy();
      finish(false, `no end in ${timeoutMs / 1000} s`);
    }, timeoutMs);
    pending.on('error', (error) => finish(false, error.message));
    pending.end();
  });
}

/** What the head says wrong for what was asked: the status, and where the body's bytes sit. */
function headProblem(
  plan: ReadPlan,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  size: number,
): string | undefined {
  const everything = plan.expect.start === 0 && plan.expect.end === size - 1;
  // RFC 9110 §14.2: a server may ignore a Range and send the whole, so a range of every byte may be a 200.
  const allowed = plan.range === undefined ? [200] : everything ? [206, 200] : [206];
  if (!allowed.includes(status)) return `status ${status}, expected ${allowed.join(' or ')}`;
  if (Number(headers['content-length']) !== plan.expect.end - plan.expect.start + 1)
    return `Content-Length ${headers['content-length']}`;
  const range = headers['content-range'];
  const wanted = `bytes ${plan.expect.start}-${plan.expect.end}/${size}`;
  if (status === 206 && range !== wanted) return `Content-Range ${String(range)}, expected ${wanted}`;
  return undefined;
}
