/**
 * The record this replica saw last for each key (or user), so the next request can be judged before its
 * read returns and counted in that same round trip (docs/performance.md, "The hot path"). Only a guess:
 * every request is still decided on the record its own read returned. Bounded: emptied when full (a
 * forgotten key costs one more round trip on its next limited request).
 */
export class LastSeen<K, T> {
  private readonly entries = new Map<K, T>();

  constructor(private readonly maxEntries = 100_000) {}

  get(id: K): T | undefined {
    return this.entries.get(id);
  }

  set(id: K, value: T): void {
    if (this.entries.get(id) === value) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(id, value);
  }
}
