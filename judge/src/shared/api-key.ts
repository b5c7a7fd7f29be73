// The one API key check, shared by the judge server and the n8n nodes. It only decides; each entry point answers
// with its own documented status and envelope (System One: 403 missing / 401 wrong; the assistant: 401 / 403).
import { createHash, timingSafeEqual } from 'node:crypto';

export type KeyVerdict = 'accepted' | 'missing' | 'not-bearer' | 'wrong';

/** `bearer`: an `Authorization: Bearer <key>` header. `plain`: a header whose whole value is the key (X-API-Key). */
export type KeyScheme = 'bearer' | 'plain';

/** SHA-256 of a key: what a KeyRing compares, and (hex) what a key store keeps. */
export const keyDigest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
const digest = keyDigest;

/** A set of accepted keys, kept as digests and compared in constant time. */
export class KeyRing {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  get size(): number {
    return this.digests.length;
  }

  has(key: string): boolean {
    return this.hasDigest(digest(key));
  }

  /** `has` for a key already hashed with keyDigest (a caller that needs the digest anyway hashes once). */
  hasDigest(presented: Buffer): boolean {
    // Equal-length digests, and every key compared: the time does not depend on which key (if any) matches.
    let found = false;
    for (const known of this.digests) found = timingSafeEqual(known, presented) || found;
    return found;
  }
}

/** Checks a header value (a string, or n8n's/node's string array) against the accepted keys. */
export function checkKey(headerValue: unknown, accepted: KeyRing, scheme: KeyScheme): KeyVerdict {
  const raw = Array.isArray(headerValue) ? headerValue[0] : headerValue;
  if (typeof raw !== 'string' || raw.trim() === '') return 'missing';
  let key = raw;
  if (scheme === 'bearer') {
    const match = /^Bearer\s+(.+)$/i.exec(raw.trim());
    if (!match) return 'not-bearer';
    key = match[1].trim();
  }
  return accepted.has(key) ? 'accepted' : 'wrong';
}
