// The installer's check of a provider key: one call to the provider's model list. A local runner is not checked (it
// takes any key and may not be running yet). The answer says what is wrong in a sentence, never with the key.
import type { AiProvider } from './providers';

export type KeyCheck =
  | { ok: true; skipped: boolean; models: number }
  | { ok: false; reason: 'refused' | 'unreachable' | 'unexpected'; message: string };

export interface KeyCheckOptions {
  /** The provider's base URL when it is not the listed one (a proxy, or a loopback fake in tests). */
  baseUrl?: string;
  timeoutMs?: number;
}

export async function checkProviderKey(provider: AiProvider, key: string, options: KeyCheckOptions = {}) {
  if (provider.kind === 'local') return { ok: true, skipped: true, models: 0 } as KeyCheck;
  if (!key.trim()) {
    return { ok: false, reason: 'refused', message: `${provider.name} needs a key (${provider.keyHint})` } as KeyCheck;
  }
  const base = options.baseUrl ?? provider.baseUrl;
  const url = new URL(provider.keyCheck.path, base.endsWith('/') ? base : `${base}/`);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: provider.keyCheck.headers(key.trim()),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    return {
      ok: false,
      reason: 'unreachable',
      message: `${provider.name} could not be reached at ${url.origin} (${cause})`,
    } as KeyCheck;
  }
  if (response.status === 401 || response.status === 403) {
    await response.body?.cancel();
    return {
      ok: false,
      reason: 'refused',
      message: `${provider.name} refused the key (HTTP ${response.status}); get one at ${provider.keyHint}`,
    } as KeyCheck;
  }
  const body = (await response.json().catch(() => null)) as { data?: unknown } | null;
  if (!response.ok || !body || !Array.isArray(body.data)) {
    return {
      ok: false,
      reason: 'unexpected',
      message: `${provider.name} answered the model list with HTTP ${response.status}, not a list of models`,
    } as KeyCheck;
  }
  return { ok: true, skipped: false, models: body.data.length } as KeyCheck;
}
