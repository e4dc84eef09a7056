// How the stats read, on the stats page and in `npm run stats`: bytes, ratios, counts, amounts and times (UTC).

// SI units (kB = 1000 B), as egress is priced: per TB of 10^12 bytes (IEC 80000-13 keeps KiB for 1024).
const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB'] as const;
/** What a ratio or a mean over nothing (null, stats-json.ts) reads as; so does a number that is no number. */
export const NONE = '—';

/** `0 B`, `999 B`, `1.00 kB`, `12.3 MB`, `456 GB`: three significant digits past bytes. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return NONE;
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < BYTE_UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  if (unit === 0) return `${value} B`;
  // 999.6 kB rounds to "1000 kB": say 1.00 MB instead.
  if (Math.abs(value) >= 999.5 && unit < BYTE_UNITS.length - 1)
    return `${(value / 1000).toFixed(2)} ${BYTE_UNITS[unit + 1]}`;
  return `${value.toFixed(Math.abs(value) < 9.995 ? 2 : Math.abs(value) < 99.95 ? 1 : 0)} ${BYTE_UNITS[unit]}`;
}

/** `97.3%`; a ratio over nothing, a dash. */
export function formatRatio(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio)) return NONE;
  // Rounded down: 99.96 % of hits is not "100.0%", which would say that nothing missed.
  return `${(Math.floor(ratio * 1000) / 10).toFixed(1)}%`;
}

/** `1,234,567` (en-US grouping, the same wherever it runs). */
export function formatCount(count: number): string {
  return Number.isFinite(count) ? count.toLocaleString('en-US', { maximumFractionDigits: 0 }) : NONE;
}

/**
 * An amount of a metered thing (requests, CPU ms, GB): whole units with separators, a small fraction to two decimals.
 */
export function formatAmount(value: number): string {
  if (!Number.isFinite(value)) return NONE;
  return value > 0 && value < 100 && !Number.isInteger(value) ? value.toFixed(2) : formatCount(Math.round(value));
}

/** An amount as a phone has room for: `9,999`, `14.1k`, `14.1 M`, `25 bn` (one decimal, none when it is 0). */
export function formatCompact(value: number): string {
  if (!Number.isFinite(value)) return NONE;
  const scaled = (divisor: number, suffix: string): string =>
    `${(value / divisor).toFixed(1).replace(/\.0$/, '')}${suffix}`;
  const size = Math.abs(value);
  if (size < 10_000) return formatAmount(value);
  if (size < 999_950) return scaled(1e3, 'k');
  if (size < 999_950_000) return scaled(1e6, ' M');
  return scaled(1e9, ' bn');
}

/** `12.3 ms`; a mean over nothing, a dash. */
export function formatMs(ms: number | null): string {
  return ms === null || !Number.isFinite(ms) ? NONE : `${ms.toFixed(1)} ms`;
}

/** Dollars: cents once there are any, else four decimals (a few GB saved is a fraction of a cent). */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return NONE;
  return `$${usd.toFixed(Math.abs(usd) >= 1 ? 2 : 4)}`;
}

/** An ISO 8601 time to the second, UTC (`2026-01-30 10:15:02Z`); text that is not a time, as it is. */
export function formatTime(iso: string | number): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime())
    ? String(iso)
    : at
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, 'Z');
}

/** The minute of an ISO 8601 time, `HH:MM` UTC; text that is not a time, as it is. */
export function formatMinute(iso: string): string {
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toISOString().slice(11, 16);
}
