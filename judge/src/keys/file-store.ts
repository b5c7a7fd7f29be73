// Keys and usage in one JSON file (mode 600) for a single server and the `keys` CLI on the same host.
//
// Writes take a lock file (`<file>.lock`, created with O_EXCL) around read → change → write, and write a temporary
// file in the same folder that is fsynced and renamed over the old one, so a reader (which takes no lock) always sees
// a whole version and concurrent writers (the server adding usage, the CLI revoking a key) never lose each other's
// change. A lock left by a crashed process (its pid gone, or older than STALE_LOCK_MS) is broken.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  addKeyTo,
  addUsageTo,
  emptyDocument,
  MinuteCounts,
  revokeIn,
  stateIn,
  usageIn,
  type KeysDocument,
} from './document';
import {
  KeyStoreError,
  type KeyRecord,
  type KeyState,
  type KeyStore,
  type UsageIncrement,
  type UsageQuery,
  type UsageRow,
} from './types';

const STALE_LOCK_MS = 30_000;
const LOCK_WAIT_MS = 10_000;

export class FileKeyStore implements KeyStore {
  readonly kind = 'file';
  private readonly minutes = new MinuteCounts();
  private cached?: { stamp: string; doc: KeysDocument };

  constructor(readonly file: string) {
    this.file = path.resolve(file);
  }

  async addKey(record: KeyRecord): Promise<void> {
    await this.update((doc) => addKeyTo(doc, structuredClone(record)));
  }

  async listKeys(): Promise<KeyRecord[]> {
    return structuredClone(this.read().keys);
  }

  async revokeKey(id: string, at: Date): Promise<KeyRecord | undefined> {
    return this.update((doc) => structuredClone(revokeIn(doc, id, at)));
  }

  async lookup(id: string, at: Date): Promise<KeyState | undefined> {
    return stateIn(this.read(), this.minutes, id, at);
  }

  async addUsage(increments: UsageIncrement[]): Promise<void> {
    await this.update((doc) => addUsageTo(doc, increments));
    this.minutes.add(increments);
  }

  async usage(query: UsageQuery): Promise<UsageRow[]> {
    return usageIn(this.read(), query);
  }

  async close(): Promise<void> {}

  /** The current document (parsed again only when the file changed; a missing file is an empty store). */
  private read(): KeysDocument {
    let stamp: string;
    try {
      const stat = statSync(this.file, { bigint: true });
      stamp = `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyDocument();
      throw error;
    }
    if (this.cached?.stamp === stamp) return this.cached.doc;
    const doc = this.parse(readFileSync(this.file, 'utf8'));
    this.cached = { stamp, doc };
    return doc;
  }

  private parse(text: string): KeysDocument {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (error) {
      throw new KeyStoreError(`${this.file} is not valid JSON: ${(error as Error).message}`);
    }
    const d = doc as Partial<KeysDocument> | null;
    if (!d || d.version !== 1 || !Array.isArray(d.keys) || !Array.isArray(d.usage)) {
      throw new KeyStoreError(`${this.file} is not a systemone-judge keys file (version 1 with keys and usage lists).`);
    }
    return d as KeysDocument;
  }

  /** Read → change → atomic write, under the lock. */
  private async update<T>(change: (doc: KeysDocument) => T): Promise<T> {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const release = await this.lock();
    try {
      let text: string | undefined;
      try {
        text = readFileSync(this.file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const doc = text === undefined ? emptyDocument() : this.parse(text);
      const result = change(doc);
      const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      const fd = openSync(temporary, 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(doc, null, 1) + '\n');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      try {
        renameSync(temporary, this.file);
      } catch (error) {
        rmSync(temporary, { force: true });
        throw error;
      }
      this.cached = undefined;
      return result;
    } finally {
      release();
    }
  }

  private async lock(): Promise<() => void> {
    const lockFile = `${this.file}.lock`;
    const token = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const fd = openSync(lockFile, 'wx', 0o600);
        try {
          writeSync(fd, token);
        } finally {
          closeSync(fd);
        }
        return () => {
          try {
            if (readFileSync(lockFile, 'utf8') === token) unlinkSync(lockFile);
          } catch {
            /* already gone */
          }
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      breakIfStale(lockFile);
      if (Date.now() > deadline) {
        throw new KeyStoreError(`${this.file} stayed locked for ${LOCK_WAIT_MS / 1000} s (lock file ${lockFile}).`);
      }
      await sleep(5 + Math.random() * 20);
    }
  }
}

function breakIfStale(lockFile: string): void {
  let content: string;
  let age: number;
  try {
    content = readFileSync(lockFile, 'utf8');
    age = Date.now() - statSync(lockFile).mtimeMs;
  } catch {
    return;
  }
  const pid = Number(content.split(' ')[0]);
  let alive = age < STALE_LOCK_MS;
  if (alive && Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      alive = (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  // Right after being created the lock may still be empty (its pid not yet written): leave it to the age rule.
  if (content === '' && age < STALE_LOCK_MS) alive = true;
  if (alive) return;
  try {
    if (readFileSync(lockFile, 'utf8') === content) unlinkSync(lockFile);
  } catch {
    /* someone else broke it */
  }
}
