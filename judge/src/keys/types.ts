// The key store's records and its one interface, implemented by a JSON file (one server), Postgres (replicas
// sharing keys and usage) and memory (env keys only; usage lost on restart).

/** Per-key limits; an absent limit is no limit. */
export interface KeyLimits {
  /** Requests per second, a token bucket per server (burst: one second's worth, at least 1). */
  ratePerSecond?: number;
  /** Input tokens per UTC minute (a fixed window, shared through the store). */
  tokensPerMinute?: number;
  /** Input tokens per UTC calendar month (shared through the store). */
  monthlyTokens?: number;
}

export interface KeyRecord {
  /** The public id, also the key's second part: `s1k_<id>_<secret>`. */
  id: string;
  name: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  /** ISO time. */
  createdAt: string;
  /** ISO time; a revoked key is refused. */
  revokedAt?: string;
  limits: KeyLimits;
}

/** A key with the token counts its limits need, as the store sees them at a moment. */
export interface KeyState {
  record: KeyRecord;
  /** Input tokens in the UTC month of the moment asked. */
  monthTokens: number;
  /** Input tokens in the UTC minute of the moment asked. */
  minuteTokens: number;
}

/**
 * Tokens the upstream model server reported for the calls behind some requests: the operator's cost there, apart
 * from the input tokens the judge meters and prices to its callers. `cachedTokens` are the part of `promptTokens`
 * its prefix cache served (`usage.prompt_tokens_details.cached_tokens`).
 */
export interface UpstreamTokens {
  promptTokens: number;
  cachedTokens: number;
  outputTokens: number;
}

export const noUpstreamTokens = (): UpstreamTokens => ({ promptTokens: 0, cachedTokens: 0, outputTokens: 0 });

/** Adds `more` into `sum` (in place) and returns it. */
export function addUpstreamTokens(sum: UpstreamTokens, more: UpstreamTokens): UpstreamTokens {
  sum.promptTokens += more.promptTokens;
  sum.cachedTokens += more.cachedTokens;
  sum.outputTokens += more.outputTokens;
  return sum;
}

/** Usage to add: one key, one UTC minute (its day follows from it). */
export interface UsageIncrement {
  keyId: string;
  /** Epoch milliseconds of the minute's start. */
  minute: number;
  requests: number;
  inputTokens: number;
  /** What the upstream reported for these requests, when the backend calls one. */
  upstream?: UpstreamTokens;
}

/** Usage of one key on one UTC day. */
export interface UsageRow {
  keyId: string;
  /** YYYY-MM-DD (UTC). */
  day: string;
  requests: number;
  inputTokens: number;
  /** Present when upstream tokens were recorded that day. */
  upstream?: UpstreamTokens;
}

export interface UsageQuery {
  /** One key, or every key. */
  keyId?: string;
  /** Inclusive YYYY-MM-DD bounds. */
  from: string;
  to: string;
}

export interface KeyStore {
  readonly kind: 'file' | 'postgres' | 'memory';
  /** Adds a key; refuses a taken id, or a name an active key already has. */
  addKey(record: KeyRecord): Promise<void>;
  /** Every key, revoked ones included, oldest first. */
  listKeys(): Promise<KeyRecord[]>;
  /** Marks the key revoked (once); undefined when there is no such key. */
  revokeKey(id: string, at: Date): Promise<KeyRecord | undefined>;
  /** The key and its token counts at `at`; undefined when there is no such key. */
  lookup(id: string, at: Date): Promise<KeyState | undefined>;
  addUsage(increments: UsageIncrement[]): Promise<void>;
  /** Rows ordered by day, then key id; days without usage are absent. */
  usage(query: UsageQuery): Promise<UsageRow[]>;
  close(): Promise<void>;
}

/** A refusal from the store the caller can act on (a taken name, …); its message is a sentence. */
export class KeyStoreError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyStoreError';
  }
}
