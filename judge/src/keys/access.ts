// Who is calling, may they, and what did they use: the server's one object for API keys.
//
// - Keys from JUDGE_API_KEYS / apiKeys (the KeyRing, no limits) and keys made by `systemone-judge keys create`
//   (looked up in the store by their id part, compared by digest in constant time, with limits).
// - What the server read about a key is reused for `cacheTtlMs` (default 1 s): a revoked key is refused by every
//   replica on its first request after that; 0 reads the store on every request. Unknown ids are cached too. When
//   the store cannot be read, a key read before is still trusted; one never read gets 503.
// - Usage (requests and input tokens per key, UTC minute and day) is buffered and written behind the response, one
//   write at a time; what arrives meanwhile goes in the next (a key file: about once a second, as the whole file is
//   rewritten). A failed write is kept and retried with the next. Until written, this server counts it itself.
import { hash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../protocol/errors';
import { KeyRing, keyDigest } from '../shared/api-key';
import { authenticate } from './authenticate';
import { DEFAULT_KEY_CACHE_TTL_MS, DEFAULT_PRICE, type KeyStoreConfig, type Price } from './config';
import { MemoryKeyStore } from './document';
import { envKeyIdOfDigest, keyIdOf } from './format';
import { checkLimits, RateBuckets, type Refusal, type WindowCounts } from './limits';
import { isKeyStore, openKeyStore } from './store';
import { minuteStart, monthStart } from './time';
import {
  addUpstreamTokens,
  noUpstreamTokens,
  type KeyLimits,
  type KeyState,
  type KeyStore,
  type UpstreamTokens,
  type UsageIncrement,
} from './types';
import { usageRange, usageReport, type UsageReport } from './usage';

export interface KeysOptions {
  /** Where keys made by the CLI live: a config (opened and closed by the server) or an open store. */
  store?: KeyStoreConfig | KeyStore;
  /** How long what was read about a key is reused, in ms (default 1000). */
  cacheTtlMs?: number;
  /** The clock (epoch ms); for tests. */
  now?: () => number;
  /** Where failed usage writes and store reads are reported (default: a JSON line on stderr). */
  onError?: (error: Error) => void;
}

export interface Caller {
  keyId: string;
  name: string;
  source: 'env' | 'store';
  limits: KeyLimits;
  counts?: WindowCounts;
}

interface CacheEntry {
  state?: KeyState;
  /** The stored key hash as bytes, for the constant-time comparison. */
  hashBytes?: Buffer;
  counts?: WindowCounts;
  fetchedAt: number;
}

const MAX_CACHED_KEYS = 10_000;
const FILE_WRITE_DELAY_MS = 1000;
const ENV_KEY_NAME = '(env key)';

function bearerToken(header: unknown): string | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  if (typeof raw !== 'string') return undefined;
  return /^Bearer\s+(.+)$/i.exec(raw.trim())?.[1].trim();
}

export class KeyAccess {
  private readonly ring: KeyRing;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<CacheEntry>>();
  private readonly buckets = new RateBuckets();
  private readonly pending = new Map<string, UsageIncrement>();
  private writing?: Promise<void>;
  private writeTimer?: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly ttl: number;
  private readonly onError: (error: Error) => void;

  private constructor(
    envKeys: readonly string[],
    /** Where usage goes: the configured store, or memory. */
    readonly store: KeyStore,
    /** Whether the store holds keys (file or Postgres), not just this process's usage. */
    readonly holdsKeys: boolean,
    private readonly ownsStore: boolean,
    readonly price: Price,
    options: KeysOptions,
  ) {
    this.ring = new KeyRing(envKeys);
    this.now = options.now ?? Date.now;
    this.ttl = options.cacheTtlMs ?? DEFAULT_KEY_CACHE_TTL_MS;
    this.onError =
      options.onError ??
      ((error) =>
        process.stderr.write(
          JSON.stringify({ time: new Date().toISOString(), level: 'error', event: 'key_store', error: error.message }) +
            '\n',
        ));
  }

  static async open(envKeys: readonly string[], options: KeysOptions = {}, price = DEFAULT_PRICE): Promise<KeyAccess> {
    const given = options.store;
    if (given === undefined) return new KeyAccess(envKeys, new MemoryKeyStore(), false, true, price, options);
    if (isKeyStore(given)) return new KeyAccess(envKeys, given, true, false, price, options);
    return new KeyAccess(envKeys, await openKeyStore(given), true, true, price, options);
  }

  /** The caller of a request, or the documented 403/401. */
  async authenticate(req: IncomingMessage): Promise<Caller> {
    return this.authenticateNow(req);
  }

  /**
   * `authenticate` without waiting when nothing has to be read from the store (an env key, or a store key read
   * less than `cacheTtlMs` ago): the caller, or a promise of it. Throws (or rejects with) the 403/401.
   */
  authenticateNow(req: IncomingMessage): Caller | Promise<Caller> {
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined && token !== '') {
      // One SHA-256 per request, for the env keys and the store alike.
      const presented = sha256(token);
      if (this.ring.hasDigest(presented)) {
        return { keyId: envKeyIdOfDigest(presented), name: ENV_KEY_NAME, source: 'env', limits: {} };
      }
      if (this.holdsKeys) {
        const id = keyIdOf(token);
        if (id !== undefined) {
          const cached = this.fresh(id);
          if (cached) {
            const caller = this.callerOf(id, cached, presented);
            if (caller) return caller;
          } else return this.storeCaller(req, id, presented);
        }
      }
    }
    return refuse(req, this.ring);
  }

  /** Whether a request of this caller may run now; a refusal says why and when to retry. */
  admit(caller: Caller): Refusal | undefined {
    if (!caller.counts) return undefined;
    return checkLimits(caller.keyId, caller.limits, caller.counts, this.buckets, this.now());
  }

  /** Counts one answered request, its input tokens and what its upstream reported (written behind). */
  record(caller: Caller, inputTokens: number, upstream?: UpstreamTokens): void {
    const now = this.now();
    const minute = minuteStart(now);
    const counts = this.cache.get(caller.keyId)?.counts;
    if (counts) addTo(counts, now, inputTokens);
    const slot = `${caller.keyId} ${minute}`;
    const increment = this.pending.get(slot) ?? { keyId: caller.keyId, minute, requests: 0, inputTokens: 0 };
    increment.requests += 1;
    increment.inputTokens += inputTokens;
    if (upstream) increment.upstream = addUpstreamTokens(increment.upstream ?? noUpstreamTokens(), upstream);
    this.pending.set(slot, increment);
    // A file is rewritten whole: batch its usage writes (about one a second). A database takes them at once.
    if (this.store.kind !== 'file') void this.flush();
    else if (!this.writeTimer) {
      this.writeTimer = setTimeout(() => {
        this.writeTimer = undefined;
        void this.flush();
      }, FILE_WRITE_DELAY_MS).unref();
    }
  }

  /** GET /v1/usage for the caller: `from`/`to` (YYYY-MM-DD, inclusive, UTC) from the query string. */
  async usage(caller: Caller, query: URLSearchParams): Promise<UsageReport> {
    const range = usageRange(query.get('from') ?? undefined, query.get('to') ?? undefined, this.now());
    if ('problem' in range) throw new ApiError(400, `The query parameter ${range.problem}`, 'invalid_request_error');
    await this.flush();
    const rows = await this.store.usage({ keyId: caller.keyId, ...range });
    return usageReport({ id: caller.keyId, name: caller.name }, range, rows, this.price);
  }

  /** Writes buffered usage; resolves when what was recorded before the call is written (or failed and kept). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending.clear();
    const writing = this.write(batch);
    this.writing = writing;
    try {
      await writing;
    } finally {
      if (this.writing === writing) this.writing = undefined;
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.writeTimer);
    this.writeTimer = undefined;
    await this.flush();
    if (this.ownsStore) await this.store.close();
  }

  private async write(batch: UsageIncrement[]): Promise<void> {
    try {
      await this.store.addUsage(batch);
    } catch (error) {
      for (const inc of batch) {
        const slot = `${inc.keyId} ${inc.minute}`;
        const later = this.pending.get(slot);
        if (later) {
          later.requests += inc.requests;
          later.inputTokens += inc.inputTokens;
          if (inc.upstream) later.upstream = addUpstreamTokens(later.upstream ?? noUpstreamTokens(), inc.upstream);
        } else this.pending.set(slot, inc);
      }
      this.onError(new Error(`usage not written yet (kept for the next write): ${(error as Error).message}`));
    }
  }

  /** A store key whose entry has to be read first. */
  private async storeCaller(req: IncomingMessage, id: string, presented: Buffer): Promise<Caller> {
    return this.callerOf(id, await this.entry(id), presented) ?? refuse(req, this.ring);
  }

  /** The caller a store entry makes of the presented key's digest, if it is that key and it is not revoked. */
  private callerOf(id: string, entry: CacheEntry, presented: Buffer): Caller | undefined {
    const record = entry.state?.record;
    if (!record || record.revokedAt) return undefined;
    entry.hashBytes ??= Buffer.from(record.hash, 'hex');
    if (entry.hashBytes.length !== presented.length || !timingSafeEqual(entry.hashBytes, presented)) return undefined;
    return { keyId: id, name: record.name, source: 'store', limits: record.limits, counts: entry.counts };
  }

  /** The cached entry of a key id, if it was read less than `cacheTtlMs` ago. */
  private fresh(id: string): CacheEntry | undefined {
    const cached = this.cache.get(id);
    return cached && this.now() - cached.fetchedAt < this.ttl ? cached : undefined;
  }

  private async entry(id: string): Promise<CacheEntry> {
    const cached = this.cache.get(id);
    if (cached && this.now() - cached.fetchedAt < this.ttl) return cached;
    let loading = this.loading.get(id);
    if (!loading) {
      loading = this.load(id, cached).finally(() => this.loading.delete(id));
      this.loading.set(id, loading);
    }
    return loading;
  }

  private async load(id: string, stale: CacheEntry | undefined): Promise<CacheEntry> {
    // Read this server's own usage back: let the write under way (if any) land first.
    await this.writing;
    const fetchedAt = this.now();
    let state: KeyState | undefined;
    try {
      state = await this.store.lookup(id, new Date(fetchedAt));
    } catch (error) {
      this.onError(new Error(`cannot read key ${id}: ${(error as Error).message}`));
      if (stale) return stale;
      throw new ApiError(503, 'The key store is unavailable; try again shortly.', 'service_unavailable');
    }
    const entry: CacheEntry = { state, fetchedAt };
    if (state) {
      entry.counts = {
        month: monthStart(fetchedAt),
        monthTokens: state.monthTokens,
        minute: minuteStart(fetchedAt),
        minuteTokens: state.minuteTokens,
      };
      // Usage recorded here but not written yet is not in the store's counts.
      for (const inc of this.pending.values()) if (inc.keyId === id) addTo(entry.counts, inc.minute, inc.inputTokens);
    }
    this.cache.delete(id);
    this.cache.set(id, entry);
    if (this.cache.size > MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
    return entry;
  }
}

/** SHA-256 of a key, as keyDigest computes it (one-shot crypto.hash where Node has it: no Hash object). */
const sha256: (text: string) => Buffer =
  typeof hash === 'function' ? (text) => hash('sha256', text, 'buffer') : keyDigest;

/** Not accepted: throws the documented 403 (no or malformed credentials) or 401 (wrong key). */
function refuse(req: IncomingMessage, ring: KeyRing): never {
  authenticate(req, ring);
  throw new Error('KeyAccess: the key was neither accepted nor refused');
}

/** Adds tokens used at `at` to counts, moving their windows forward when `at` is in a later minute or month. */
function addTo(counts: WindowCounts, at: number, tokens: number): void {
  const minute = minuteStart(at);
  if (minute === counts.minute) counts.minuteTokens += tokens;
  else if (minute > counts.minute) Object.assign(counts, { minute, minuteTokens: tokens });
  const month = monthStart(at);
  if (month === counts.month) counts.monthTokens += tokens;
  else if (month > counts.month) Object.assign(counts, { month, monthTokens: tokens });
}

/** The 429 for a refusal, in Jev's envelope, with `retry-after` (whole seconds) and `retry-after-ms`. */
export function tooManyRequests(res: ServerResponse, refusal: Refusal): ApiError {
  const headers = {
    'retry-after': String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000))),
    'retry-after-ms': String(refusal.retryAfterMs),
  };
  // Also on the response itself, so the headers go out whichever way the server writes an ApiError's headers.
  if (!res.headersSent) for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  return new ApiError(429, refusal.message, 'rate_limit_exceeded', { headers });
}
