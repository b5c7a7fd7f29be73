// Checks a caller's `Authorization: Bearer <key>` header against the configured key, in constant time,
// and answers like the judge server does: missing key → 403, wrong key → 401 (authentication_error).
import { checkKey, KeyRing, type ErrorBody } from 'systemone-judge/core';

export interface HttpFailure {
  statusCode: number;
  body: ErrorBody;
}

export const MISSING_KEY: HttpFailure = {
  statusCode: 403,
  body: { detail: { error_type: 'permission_error', message: 'Not authenticated.' } },
};
export const NOT_BEARER: HttpFailure = {
  statusCode: 403,
  body: {
    detail: { error_type: 'permission_error', message: 'Not authenticated: use "Authorization: Bearer <key>".' },
  },
};
export const WRONG_KEY: HttpFailure = {
  statusCode: 401,
  body: { detail: { error_type: 'authentication_error', message: 'Invalid API key.' } },
};

/** Returns null when the header carries the expected key, else the failure to answer with. */
export function checkBearerKey(authorization: unknown, expectedKey: string): HttpFailure | null {
  const verdict = checkKey(authorization, new KeyRing([expectedKey]), 'bearer');
  if (verdict === 'missing') return MISSING_KEY;
  if (verdict === 'not-bearer') return NOT_BEARER;
  return verdict === 'wrong' ? WRONG_KEY : null;
}

/** The credential holding the key callers of a pass-through workflow must send. */
export const INBOUND_KEY_CREDENTIAL = 'systemOneInboundKeyApi';
