/**
 * API keys as authentication finds them, kept for a few seconds: without it every request ran a unit of work on
 * the organization's partition, and on a SQL store every project's requests queued for the organization's lock.
 * A key found is kept for `ttlMs`; a key not found is never kept (one made a moment ago on another instance works
 * at once). Changes made through this server (a project deleted) drop every kept key at once; on other instances
 * sharing the store, a deleted key is still accepted for at most `ttlMs`.
 */
export class KeyCache<K> {
  private readonly kept = new Map<string, { key: K; until: number }>();

  constructor(
    private readonly find: (appId: string) => Promise<K | undefined>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  readonly lookup = async (appId: string): Promise<K | undefined> => {
    const at = this.now();
    const kept = this.kept.get(appId);
    if (kept && kept.until > at) return kept.key;
    const key = await this.find(appId);
    if (key === undefined) {
      this.kept.delete(appId);
      return undefined;
    }
    // Expired entries go in bulk; the map never holds more than the keys used within one period and this many.
    if (this.kept.size >= 10_000) for (const [id, entry] of this.kept) if (entry.until <= at) this.kept.delete(id);
    if (this.ttlMs > 0) this.kept.set(appId, { key, until: at + this.ttlMs });
    return key;
  };

  /** Keys changed through this server: nothing kept is used again. */
  clear(): void {
    this.kept.clear();
  }
}
