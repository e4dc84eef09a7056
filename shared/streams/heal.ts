// How a body that fails part-way is asked for again: from the byte reached, a bounded number of times
// with backoff; past that, the fault stands.

import { VersionChanged } from '../http/errors.ts';
import { asError } from './as-error.ts';
import { type StreamReader, streamReader } from './stream-reader.ts';

type Bytes = Uint8Array;

/** How a body that fails part-way is asked for again. */
export interface Heal {
  /**
   * The same bytes from `offset` (within this body) on, from the next hop again: a ranged GET with
   * If-Match at the shield, the same slice request with an offset at the edge.
   */
  reopen(offset: number): Promise<ReadableStream<Bytes>>;
  /** Reopenings allowed. */
  attempts: number;
  /** Wait before the first reopening (ms), doubled before each further one. */
  backoffMs: number;
}

/** Reopenings of one body, and the wait before the first: three, from 100 ms (100 + 200 + 400 ms in all). */
export const HEAL_ATTEMPTS = 3;
export const HEAL_BACKOFF_MS = 100;

/**
 * The reopenings of one body under `heal` (none without it): its attempts are counted across every fault of the body.
 */
export class Reopenings {
  private attempt = 0;
  private readonly heal: Heal | undefined;

  constructor(heal: Heal | undefined) {
    this.heal = heal;
  }

  /**
   * A reader of the body from `offset` on, reopened after `fault` (a failed reopening is the
   * next fault); throws the fault once no attempt is left, at a version change, or once
   * `cancelled()`.
   */
  async reopened(fault: Error, offset: number, cancelled: () => boolean): Promise<StreamReader> {
    const { heal } = this;
    for (;;) {
      if (heal === undefined || fault instanceof VersionChanged || this.attempt >= heal.attempts || cancelled())
        throw fault;
      await sleep(heal.backoffMs * 2 ** this.attempt);
      this.attempt++;
      if (cancelled()) throw fault;
      try {
        return streamReader(await heal.reopen(offset));
      } catch (error) {
        fault = asError(error);
      }
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
