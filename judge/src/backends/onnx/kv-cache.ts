// The state-KV cache: an LRU keyed by model id + the hash of the rendered state, bounded by bytes.
import { createHash } from 'node:crypto';
import type { KvTensors } from './tensors';

export interface CachedState {
  /** The state's token ids (the KV covers exactly these). */
  tokens: number;
  kv: KvTensors;
  bytes: number;
}

export function stateKey(modelId: string, renderedState: string): string {
  return `${modelId}\u0000${createHash('sha256').update(renderedState).digest('hex')}`;
}

export class StateKvCache {
  private readonly entries = new Map<string, CachedState>();
  private used = 0;

  constructor(readonly budgetBytes: number) {}

  get(key: string): CachedState | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      // Move to the most recently used end.
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Whether an entry of this size would be kept at all (0 budget: never). */
  accepts(bytes: number): boolean {
    return bytes <= this.budgetBytes;
  }

  /** Stores an entry, evicting the least recently used ones; an entry over the whole budget is not kept. */
  set(key: string, value: CachedState): void {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.used -= old.bytes;
    }
    if (value.bytes > this.budgetBytes) return;
    while (this.used + value.bytes > this.budgetBytes && this.entries.size > 0) {
      const [oldestKey, oldest] = this.entries.entries().next().value as [string, CachedState];
      this.entries.delete(oldestKey);
      this.used -= oldest.bytes;
    }
    this.entries.set(key, value);
    this.used += value.bytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.used;
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }
}
