// A small LRU of tokenisations, bounded by the characters of the texts kept. The engine counts a request's
// tokens (for the token budget) right before scoring it, and labels and question suffixes repeat across calls,
// so most texts are tokenised once.
export class TokenMemo {
  private readonly entries = new Map<string, readonly number[]>();
  private chars = 0;

  constructor(readonly budgetChars: number) {}

  /** The memoised ids of `text` (under `variant`, e.g. with or without special tokens), computing them once. */
  ids(variant: string, text: string, tokenize: (text: string) => number[]): readonly number[] {
    const key = `${variant}\u0000${text}`;
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const ids = Object.freeze(tokenize(text));
    if (key.length > this.budgetChars / 4) return ids; // one huge text would evict everything else
    while (this.chars + key.length > this.budgetChars && this.entries.size > 0) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
      this.chars -= oldest.length;
    }
    this.entries.set(key, ids);
    this.chars += key.length;
    return ids;
  }

  get size(): number {
    return this.entries.size;
  }
}
