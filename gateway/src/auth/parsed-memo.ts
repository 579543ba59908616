/**
 * Remembers what a cache string parsed to, keyed by the exact string. Safe for freshness: any
 * change to a record changes its string (scopes, revoked flag, version), so a changed record is
 * always parsed afresh. It only saves JSON.parse and decoding (figures in docs/performance.md). Bounded:
 * emptied when full.
 */
export class ParsedMemo<T> {
  private readonly entries = new Map<string, T>();

  constructor(
    private readonly parse: (raw: string) => T,
    private readonly maxEntries = 10_000,
  ) {}

  get(raw: string): T {
    let value = this.entries.get(raw);
    if (value === undefined) {
      value = this.parse(raw);
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(raw, value);
    }
    return value;
  }
}
