// HTTP-date (RFC 9110 §5.6.7): the three forms a recipient must accept, and nothing else, matched
// without regard to case.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// Each matched without regard to case (the `i` flag): every reader here is a cache, and RFC 9111
// §4.2 says "a cache recipient SHOULD match the field value case-insensitively".

/** Sun, 06 Nov 1994 08:49:37 GMT */
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, 'i');
/** Sunday, 06-Nov-94 08:49:37 GMT (obsolete) */
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, 'i');
/** Sun Nov  6 08:49:37 1994 (obsolete; always UTC) */
const ASCTIME = new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`, 'i');

/**
 * The time as ms epoch, or undefined for anything that is not an HTTP-date. Not Date.parse, which
 * is far more lenient (ISO 8601, bare years, local time zones): an Expires of "2099" must read as
 * invalid, hence already expired (RFC 9111 §5.3), not as a far future.
 */
export function parseHttpDate(value: string | null | undefined, now = Date.UTC(2000, 0)): number | undefined {
  if (!value) return undefined;
  const text = value.trim();
  let match = IMF_FIXDATE.exec(text);
  if (match) return utc(match[3], match[2], match[1], match[4], match[5], match[6]);
  match = RFC850.exec(text);
  if (match) return utc(String(fullYear(Number(match[3]), now)), match[2], match[1], match[4], match[5], match[6]);
  match = ASCTIME.exec(text);
  if (match) return utc(match[6], match[1], match[2], match[3], match[4], match[5]);
  return undefined;
}

/** IMF-fixdate, the form we send. */
export function formatHttpDate(ms: number): string {
  return new Date(ms).toUTCString();
}

/**
 * §5.6.7: a two-digit year "that appears to be more than 50 years in the future" is the most
 * recent past year with those digits.
 */
function fullYear(twoDigits: number, now: number): number {
  const thisYear = new Date(now).getUTCFullYear();
  let year = Math.floor(thisYear / 100) * 100 + twoDigits;
  if (year > thisYear + 50) year -= 100;
  return year;
}

function utc(
  year?: string,
  month?: string,
  day?: string,
  hour?: string,
  minute?: string,
  second?: string,
): number | undefined {
  const monthIndex = MONTHS.findIndex((name) => name.toLowerCase() === (month ?? '').toLowerCase());
  const [y = Number.NaN, d = Number.NaN, h = Number.NaN, m = Number.NaN, s = Number.NaN] = [
    year,
    day,
    hour,
    minute,
    second,
  ].map((part) => Number(part?.trim()));
  if (monthIndex < 0 || [y, d, h, m, s].some((n) => !Number.isInteger(n))) return undefined;
  const ms = Date.UTC(y, monthIndex, d, h, m, s);
  const date = new Date(ms);
  // Reject impossible calendar dates (31 Feb) and times (25:61:61) instead of rolling them over.
  if (date.getUTCDate() !== d || date.getUTCHours() !== h || date.getUTCMinutes() !== m || date.getUTCSeconds() !== s)
    return undefined;
  return ms;
}
