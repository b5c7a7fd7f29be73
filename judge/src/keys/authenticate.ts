// Checking a request's API key against the configured keys, with Jev's statuses.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../protocol/errors';
import { checkKey, type KeyRing } from '../shared/api-key';

/** Jev's rules: no credentials → 403; wrong credentials → 401 authentication_error. */
export function authenticate(req: IncomingMessage, keys: KeyRing): void {
  const verdict = checkKey(req.headers.authorization, keys, 'bearer');
  if (verdict === 'missing') throw new ApiError(403, 'Not authenticated.', 'permission_error');
  if (verdict === 'not-bearer')
    throw new ApiError(403, 'Not authenticated: use "Authorization: Bearer <key>".', 'permission_error');
  if (verdict === 'wrong') throw new ApiError(401, 'Invalid API key.', 'authentication_error');
}
