// The bound on the silence inside one body: a read awaited for `idleMs` with no byte has its
// source cut, and the read that then ends (or breaks) is taken for the stall it is.

import { BodyStalled } from '../http/errors.ts';

/**
 * Reads of one body, watched for silence. A read costs no timer of its own: one timer per body
 * checks when the read under way began, and cuts a source silent for `idleMs` (the read then
 * ends, and is taken for the stall it is). No bound when `idleMs` is 0 or undefined.
 */
export class SilenceWatch {
  /** When the read under way began (undefined: none is), and the watch's one timer. */
  private waitingSince: number | undefined;
  private watchdog: ReturnType<typeof setTimeout> | undefined;
  private cutOff = false;
  private stopped = false;
  private readonly idleMs: number | undefined;
  private readonly cut: (stall: BodyStalled) => void;

  /** `cut` lets the silent source go (cancels it with the stall). */
  constructor(idleMs: number | undefined, cut: (stall: BodyStalled) => void) {
    this.idleMs = idleMs;
    this.cut = cut;
  }

  /** The watch cut the read under way (until stallOr says so). */
  get stalled(): boolean {
    return this.cutOff;
  }

  /** One read, watched. */
  async watched<T>(read: () => Promise<T>): Promise<T> {
    const { idleMs } = this;
    if (idleMs === undefined || idleMs <= 0) return read();
    this.waitingSince = Date.now();
    this.watchdog ??= setTimeout(() => this.check(idleMs), idleMs);
    try {
      return await read();
    } finally {
      this.waitingSince = undefined;
    }
  }

  /** No more watching: the body is done or cancelled. */
  stop(): void {
    this.stopped = true;
    if (this.watchdog !== undefined) clearTimeout(this.watchdog);
    this.watchdog = undefined;
  }

  /** The fault a failed read stands for: the stall, when the watch cut it. */
  stallOr(fault: Error): Error {
    if (!this.cutOff) return fault;
    this.cutOff = false;
    return new BodyStalled(`no byte for ${this.idleMs} ms`);
  }

  private check(idleMs: number): void {
    this.watchdog = undefined;
    if (this.waitingSince === undefined || this.stopped) return;
    const silent = Date.now() - this.waitingSince;
    if (silent < idleMs) {
      this.watchdog = setTimeout(() => this.check(idleMs), idleMs - silent);
      return;
    }
    this.cutOff = true;
    this.cut(new BodyStalled(`no byte for ${idleMs} ms`));
  }
}
