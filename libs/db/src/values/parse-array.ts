export type PgArray<T> = Array<T | null | PgArray<T>>;

/**
 * PostgreSQL's array text output (`{1,NULL,"a b"}`, nested for more dimensions, optionally
 * prefixed with bounds like `[0:1]=`) to nested JS arrays. Used on the pg side only, so that
 * our element parsers also apply inside arrays; PGlite already derives array parsers from them.
 */
export function parseArray<T>(source: string, element: (raw: string) => T): PgArray<T> {
  let i = source.startsWith('[') ? source.indexOf('=') + 1 : 0;

  const level = (): PgArray<T> => {
    const out: PgArray<T> = [];
    i++; // the opening brace
    while (i < source.length) {
      const ch = source[i];
      if (ch === '}') {
        i++;
        return out;
      }
      if (ch === ',') {
        i++;
      } else if (ch === '{') {
        out.push(level());
      } else if (ch === '"') {
        let value = '';
        for (i++; i < source.length && source[i] !== '"'; i++) {
          if (source[i] === '\\') i++;
          value += source[i] ?? '';
        }
        i++;
        out.push(element(value));
      } else {
        let end = i;
        while (end < source.length && source[end] !== ',' && source[end] !== '}') end++;
        const raw = source.slice(i, end);
        i = end;
        out.push(raw === 'NULL' ? null : element(raw));
      }
    }
    throw new Error(`Unterminated array text "${source}"`);
  };

  return level();
}
