// Checks the API key header of a webhook call against the key in n8n's Header Auth credential, in constant time.
// A missing key answers 401 (not authenticated); a wrong key 403 (not allowed). Both as JSON.
import { checkKey, KeyRing } from 'systemone-judge/core';
import { httpError, type HttpResult } from './http-result';

export interface HeaderAuthCredential {
  name: string;
  value: string;
}

/** Returns null when the headers carry the expected key, else the failure to answer with. */
export function checkApiKey(
  headers: Record<string, unknown> | undefined,
  credential: HeaderAuthCredential,
): HttpResult | null {
  const headerName = credential.name.trim().toLowerCase();
  if (headerName === '' || credential.value === '') {
    // A misconfigured credential must never let everyone in.
    return httpError(
      503,
      'auth_not_configured',
      'The assistant has no API key configured (its Header Auth credential has no header name or value)',
    );
  }
  const verdict = checkKey(headers?.[headerName], new KeyRing([credential.value]), 'plain');
  if (verdict === 'missing') {
    return httpError(401, 'unauthenticated', `Missing API key: send it in the ${credential.name.trim()} header`);
  }
  return verdict === 'accepted' ? null : httpError(403, 'forbidden', 'Invalid API key');
}
