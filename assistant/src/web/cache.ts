// A small time-limited cache: entries expire after `ttlMs`; when it holds too many entries or too much weight (e.g.
// characters of content), the oldest go first. An entry heavier than the whole budget is not kept.

export interface TtlCacheOptions<V> {
  ttlMs: number;
  maxEntries: number;
  /** The most weight all entries may have together; unlimited by default. */
  maxWeight?: number;
  weigh?: (value: V) => number;
  now?: () => number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number; weight: number }>();
  private weight = 0;

  constructor(private readonly options: TtlCacheOptions<V>) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    const { ttlMs, maxEntries, maxWeight = Infinity } = this.options;
    const weight = this.options.weigh?.(value) ?? 0;
    this.delete(key);
    if (ttlMs <= 0 || maxEntries <= 0 || weight > maxWeight) return;
    while (this.entries.size >= maxEntries || this.weight + weight > maxWeight) {
      this.delete(this.entries.keys().next().value as string);
    }
    this.entries.set(key, { value, expires: this.now() + ttlMs, weight });
    this.weight += weight;
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.weight -= entry.weight;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
