// Key format: `s1k_<id>_<secret>`. The prefix makes a leaked key recognisable (secret scanners, logs); the id (12 hex
// characters, public, shown by `keys list`) is how the store finds the key, so nothing is ever looked up by a secret;
// the secret is 32 random bytes (base64url). The store keeps SHA-256 of the whole key and compares digests in
// constant time.
//
// Why SHA-256 and not scrypt/argon2: those slow hashes exist to protect low-entropy passwords from guessing. A
// 256-bit random secret cannot be guessed whatever the hash, so a slow hash would only cost CPU on every cache
// miss (tens of milliseconds each, an easy way to exhaust a 2-core server with made-up keys) and buy nothing.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyLimits, KeyRecord } from './types';

export const KEY_PREFIX = 's1k_';
const KEY_PATTERN = /^s1k_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
export const KEY_ID_PATTERN = /^[0-9a-f]{12}$/;

export const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** The id part of a well-formed key, else undefined. */
export function keyIdOf(key: string): string | undefined {
  return KEY_PATTERN.exec(key)?.[1];
}

/** Whether `key` hashes to `record.hash`, compared in constant time. */
export function keyMatches(key: string, record: KeyRecord): boolean {
  const presented = Buffer.from(hashKey(key), 'hex');
  const stored = Buffer.from(record.hash, 'hex');
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}

/** A new key and its record; the key is returned once and never stored. */
export function generateKey(name: string, limits: KeyLimits, now = new Date()): { key: string; record: KeyRecord } {
  const id = randomBytes(6).toString('hex');
  const key = `${KEY_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
  return { key, record: { id, name, hash: hashKey(key), createdAt: now.toISOString(), limits } };
}

/** Usage of a JUDGE_API_KEYS / apiKeys key is kept under this id: stable, and revealing nothing of the key. */
export const envKeyId = (key: string): string => `env-${hashKey(key).slice(0, 12)}`;

/** envKeyId from the key's SHA-256 bytes (keyDigest), for a caller that has hashed the key already. */
export const envKeyIdOfDigest = (digest: Buffer): string => `env-${digest.toString('hex', 0, 6)}`;

/** A key name: what `keys list` shows and `keys revoke` accepts. */
export const KEY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._:@/-]{0,99}$/;
