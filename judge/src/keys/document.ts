// The keys and usage as one JSON document: the memory store keeps it in memory, the file store on disk. Both share
// these operations. Token counts for the per-minute limit live in the process (a file serves one server).
import { minuteStart, monthStart, utcDay } from './time';
import {
  KeyStoreError,
  type KeyRecord,
  type KeyState,
  type KeyStore,
  type UsageIncrement,
  type UsageQuery,
  type UsageRow,
  addUpstreamTokens,
  noUpstreamTokens,
} from './types';

export interface KeysDocument {
  version: 1;
  keys: KeyRecord[];
  usage: UsageRow[];
}

export const emptyDocument = (): KeysDocument => ({ version: 1, keys: [], usage: [] });

export function addKeyTo(doc: KeysDocument, record: KeyRecord): void {
  if (doc.keys.some((k) => k.id === record.id)) throw new KeyStoreError(`A key with id ${record.id} already exists.`);
  if (doc.keys.some((k) => k.name === record.name && !k.revokedAt)) {
    throw new KeyStoreError(`An active key is already named ${JSON.stringify(record.name)}.`);
  }
  doc.keys.push(record);
}

export function revokeIn(doc: KeysDocument, id: string, at: Date): KeyRecord | undefined {
  const record = doc.keys.find((k) => k.id === id);
  if (record && !record.revokedAt) record.revokedAt = at.toISOString();
  return record;
}

export function addUsageTo(doc: KeysDocument, increments: UsageIncrement[]): void {
  for (const inc of increments) {
    const day = utcDay(inc.minute);
    let row = doc.usage.find((r) => r.keyId === inc.keyId && r.day === day);
    if (!row) {
      row = { keyId: inc.keyId, day, requests: 0, inputTokens: 0 };
      doc.usage.push(row);
    }
    row.requests += inc.requests;
    row.inputTokens += inc.inputTokens;
    if (inc.upstream) row.upstream = addUpstreamTokens(row.upstream ?? noUpstreamTokens(), inc.upstream);
  }
}

export function usageIn(doc: KeysDocument, query: UsageQuery): UsageRow[] {
  return doc.usage
    .filter((r) => (query.keyId === undefined || r.keyId === query.keyId) && r.day >= query.from && r.day <= query.to)
    .map((r) => ({ ...r, ...(r.upstream ? { upstream: { ...r.upstream } } : {}) }))
    .sort((a, b) => (a.day === b.day ? a.keyId.localeCompare(b.keyId) : a.day < b.day ? -1 : 1));
}

export function monthTokensIn(doc: KeysDocument, keyId: string, at: Date): number {
  const first = utcDay(monthStart(at.getTime()));
  const today = utcDay(at.getTime());
  return doc.usage
    .filter((r) => r.keyId === keyId && r.day >= first && r.day <= today)
    .reduce((s, r) => s + r.inputTokens, 0);
}

/** Input tokens per key in its latest minute, counted by this process. */
export class MinuteCounts {
  private readonly counts = new Map<string, { minute: number; tokens: number }>();

  add(increments: UsageIncrement[]): void {
    for (const inc of increments) {
      const current = this.counts.get(inc.keyId);
      if (!current || current.minute < inc.minute)
        this.counts.set(inc.keyId, { minute: inc.minute, tokens: inc.inputTokens });
      else if (current.minute === inc.minute) current.tokens += inc.inputTokens;
    }
  }

  tokens(keyId: string, minute: number): number {
    const current = this.counts.get(keyId);
    return current && current.minute === minute ? current.tokens : 0;
  }
}

/** Reads a document's parts into a KeyState. */
export function stateIn(doc: KeysDocument, minutes: MinuteCounts, id: string, at: Date): KeyState | undefined {
  const record = doc.keys.find((k) => k.id === id);
  if (!record) return undefined;
  return {
    record: structuredClone(record),
    monthTokens: monthTokensIn(doc, id, at),
    minuteTokens: minutes.tokens(id, minuteStart(at.getTime())),
  };
}

/** Keys and usage in memory: for a server with env keys only (usage lasts until it stops), and for tests. */
export class MemoryKeyStore implements KeyStore {
  readonly kind = 'memory';
  private readonly doc = emptyDocument();
  private readonly minutes = new MinuteCounts();

  async addKey(record: KeyRecord): Promise<void> {
    addKeyTo(this.doc, structuredClone(record));
  }

  async listKeys(): Promise<KeyRecord[]> {
    return structuredClone(this.doc.keys);
  }

  async revokeKey(id: string, at: Date): Promise<KeyRecord | undefined> {
    return structuredClone(revokeIn(this.doc, id, at));
  }

  async lookup(id: string, at: Date): Promise<KeyState | undefined> {
    return stateIn(this.doc, this.minutes, id, at);
  }

  async addUsage(increments: UsageIncrement[]): Promise<void> {
    addUsageTo(this.doc, increments);
    this.minutes.add(increments);
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    return usageIn(this.doc, query);
  }

  async close(): Promise<void> {}
}
