// PostgreSQL's text output with DateStyle ISO (the default on both kinds), e.g.
// "2024-01-02 03:04:05.123456+05:30", "0044-03-15 00:00:00 BC", or no offset for `timestamp`.
const TIMESTAMP_TEXT =
  /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::(\d{2}))?(?::(\d{2}))?)?( BC)?$/;

/**
 * `timestamptz` and `timestamp` text to a Date. A `timestamp` (no offset) is read as UTC, so the
 * value never depends on the process's TZ (pg would read it as local time, PGlite as UTC-ish).
 * Microseconds are truncated to milliseconds, JavaScript's resolution. `infinity` and
 * `-infinity` become ±Infinity, as both drivers do by default.
 */
export function parseTimestamp(text: string): Date | number {
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const m = TIMESTAMP_TEXT.exec(text);
  if (!m) throw new Error(`Unrecognised timestamp text "${text}" (is DateStyle ISO?)`);
  const [, y, mo, d, h, mi, s, frac, sign, oh, om, os, bc] = m;
  // setUTCFullYear, because Date.UTC maps years 0-99 to 1900-1999.
  const date = new Date(0);
  const year = bc ? 1 - Number(y) : Number(y);
  date.setUTCFullYear(year, Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), Number((frac ?? '').slice(0, 3).padEnd(3, '0')));
  if (sign) {
    const offsetSeconds = Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0);
    date.setTime(date.getTime() - (sign === '-' ? -1 : 1) * offsetSeconds * 1000);
  }
  return date;
}
