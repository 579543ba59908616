import type { CatalogEntryInput } from '@acs/contracts';

/**
 * Validated entries as the text format of `COPY ... FROM STDIN` (one line per entry, columns
 * separated by tabs, in the order of IMPORT_ROW_COLUMNS), in chunks of about CHUNK_CHARS so the
 * batch is never one large string. In that format a backslash starts an escape, and a tab, a
 * newline or a carriage return inside a value would end it: those four are escaped, nothing else
 * (NUL never gets here: request bodies with it are refused, libs/http/src/storable-text.ts).
 */
export const IMPORT_ROW_COLUMNS = 'type, brand, model, price, currency, release_year, specs';

const CHUNK_CHARS = 64 * 1024;
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function copyText(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (char) => ESCAPES[char]!) : value;
}

function line(entry: CatalogEntryInput): string {
  // JSON.stringify escapes control characters itself; its backslashes still need doubling.
  return `${entry.type}\t${copyText(entry.brand)}\t${copyText(entry.model)}\t${entry.price}\t${entry.currency}\t${entry.releaseYear}\t${copyText(JSON.stringify(entry.specs))}\n`;
}

export function* importRowChunks(entries: readonly CatalogEntryInput[]): Generator<string> {
  let chunk = '';
  for (const entry of entries) {
    chunk += line(entry);
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk.length > 0) yield chunk;
}
