// Checks a caller's `Authorization: Bearer <key>` header against the configured key, in constant time,
// and answers like the judge server does: missing key → 403, wrong key → 401 (authentication_error).
import { createHash, timingSafeEqual } from 'node:crypto';

import type { ErrorBody } from '../../../../judge/src/protocol/types';

export interface HttpFailure {
  statusCode: number;
  body: ErrorBody;
}

export const MISSING_KEY: HttpFailure = {
  statusCode: 403,
  body: { detail: 'Not authenticated.', error_type: 'permission_error' },
};
export const NOT_BEARER: HttpFailure = {
  statusCode: 403,
  body: { detail: 'Not authenticated: use "Authorization: Bearer <key>".', error_type: 'permission_error' },
};
export const WRONG_KEY: HttpFailure = {
  statusCode: 401,
  body: { detail: 'Invalid API key.', error_type: 'authentication_error' },
};

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Returns null when the header carries the expected key, else the failure to answer with. */
export function checkBearerKey(authorization: unknown, expectedKey: string): HttpFailure | null {
  const header = Array.isArray(authorization) ? authorization[0] : authorization;
  if (typeof header !== 'string' || header.trim() === '') return MISSING_KEY;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!match) return NOT_BEARER;
  // Hashing first gives equal-length buffers, so the comparison time does not depend on the key.
  return timingSafeEqual(digest(match[1].trim()), digest(expectedKey)) ? null : WRONG_KEY;
}
