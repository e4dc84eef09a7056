// The window the stats keep and show: the last `windowMinutes` whole minutes (UTC), ending with the one that holds
// `now`. One definition, so that the Durable Object drops exactly the buckets the view would no longer show.

export const MINUTE_MS = 60_000;
export const DEFAULT_WINDOW_MINUTES = 60;
/** A day: the most a window holds, so that a view's minutes stay bounded whatever it is asked. */
export const MAX_WINDOW_MINUTES = 1440;

/** The start of the minute holding `at` (ms epoch): each minute of the window is named by its start. */
export function minuteOf(at: number): number {
  return Math.floor(at / MINUTE_MS) * MINUTE_MS;
}

/** The window's length as used: a whole number of minutes from 1 to a day (the default when it is no number). */
export function windowLength(windowMinutes: number): number {
  if (!Number.isFinite(windowMinutes)) return DEFAULT_WINDOW_MINUTES;
  return Math.min(MAX_WINDOW_MINUTES, Math.max(1, Math.floor(windowMinutes)));
}

/** The window's minutes, oldest first, the last one holding `now`. */
export function windowMinuteStarts(now: number, windowMinutes: number): number[] {
  const last = minuteOf(now);
  const count = windowLength(windowMinutes);
  return Array.from({ length: count }, (_, i) => last - (count - 1 - i) * MINUTE_MS);
}

/** Whether the minute starting at `minute` is older than the window ending with `now`'s minute: its bucket may go. */
export function expired(minute: number, now: number, windowMinutes: number): boolean {
  return minute < minuteOf(now) - (windowLength(windowMinutes) - 1) * MINUTE_MS;
}

/** Whether the minute is one of the window's (neither expired nor after `now`'s minute). */
export function inWindow(minute: number, now: number, windowMinutes: number): boolean {
  return !expired(minute, now, windowMinutes) && minute <= minuteOf(now);
}
