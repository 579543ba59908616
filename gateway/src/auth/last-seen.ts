/**
 * The record this replica saw last for each key (or user), and the cache string it came from, so the next
 * request can be judged before its read returns and counted in that same round trip (docs/performance.md, "The
 * hot path"). Only a guess: every request is still decided on the record its own read returned. Bounded:
 * emptied when full (a forgotten key costs one more round trip on its next limited request).
 */
export class LastSeen<K, T> {
  private readonly entries = new Map<K, { value: T; raw: string }>();

  constructor(private readonly maxEntries = 100_000) {}

  get(id: K): T | undefined {
    return this.entries.get(id)?.value;
  }

  /**
   * The record last seen for `id` when `raw` is the very string it was parsed from, else undefined. Comparing
   * with that one string is cheaper than finding `raw` in the parsed memo, which hashes every character of a
   * string new to V8 (each reply's is): about half a µs for a user's record (docs/performance.md).
   */
  ifUnchanged(id: K, raw: string): T | undefined {
    const seen = this.entries.get(id);
    return seen !== undefined && seen.raw === raw ? seen.value : undefined;
  }

  set(id: K, value: T, raw: string): void {
    const seen = this.entries.get(id);
    if (seen !== undefined && seen.value === value) {
      seen.raw = raw;
      return;
    }
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(id, { value, raw });
  }
}
