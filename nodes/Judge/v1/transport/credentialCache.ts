// Decrypted credentials kept for a moment, per n8n process. In n8n each read is a database query, a decryption and
// n8n's own checks: for the wrapper's two credentials that was ~6 ms of each call (docs/BENCHMARKS.md, "n8n wrapper").
// A changed or removed key takes effect within CREDENTIAL_CACHE_TTL_MS. The entry is per workflow, node credential
// id and type, and only reached by executions n8n has already allowed to use that credential.
import type { IExecuteFunctions } from 'n8n-workflow';

export const CREDENTIAL_CACHE_TTL_MS = 1000;
const MAX_ENTRIES = 256;

interface Entry {
  expiresAt: number;
  value: Promise<unknown>;
}

const entries = new Map<string, Entry>();

/**
 * `context.getCredentials(type)`, reusing a read made less than CREDENTIAL_CACHE_TTL_MS ago (concurrent calls share
 * one read). Credentials without an id (not from n8n's store) are never cached, and a failed read is not kept.
 */
export async function getCachedCredentials<T extends object>(
  context: IExecuteFunctions,
  type: string,
  now: number = Date.now(),
): Promise<T> {
  const credentialId = context.getNode().credentials?.[type]?.id;
  if (!credentialId) return await context.getCredentials<T & Record<string, unknown>>(type);
  const key = JSON.stringify([context.getWorkflow().id ?? '', type, credentialId]);
  const cached = entries.get(key);
  if (cached && cached.expiresAt > now) return (await cached.value) as T;

  if (entries.size >= MAX_ENTRIES) {
    for (const [oldKey, entry] of entries) if (entry.expiresAt <= now) entries.delete(oldKey);
    if (entries.size >= MAX_ENTRIES) entries.clear();
  }
  const entry: Entry = { expiresAt: now + CREDENTIAL_CACHE_TTL_MS, value: context.getCredentials(type) };
  entries.set(key, entry);
  try {
    return (await entry.value) as T;
  } catch (error) {
    if (entries.get(key) === entry) entries.delete(key);
    throw error;
  }
}

/** Forgets every cached credential (tests). */
export function clearCredentialCache(): void {
  entries.clear();
}
