/**
 * RFC 4180 text: a header line, then one line per row, CRLF. A field with a comma, quote or line break
 * is quoted; one starting with = + - @ gets a leading apostrophe so a spreadsheet never runs it as a
 * formula (key names are the user's own text).
 */
export function toCsv(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  return `${[header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}

function csvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** CSV when the query says format=csv, or says nothing and the client accepts text/csv (over JSON). */
export function wantsCsv(format: 'json' | 'csv' | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === 'csv';
  return accept !== undefined && /(^|,)\s*text\/csv\s*(;|,|$)/i.test(accept) && !/application\/json/i.test(accept);
}
