// The Channel's API key check: the configured header, 401/403/503 JSON answers.
import { describe, expect, it } from 'vitest';
import { checkApiKey } from '../../src/channel';

const credential = { name: 'X-API-Key', value: 'k3y-value' };

describe('API key check', () => {
  it('accepts the right key in the configured header, case-insensitively by header name', () => {
    expect(checkApiKey({ 'x-api-key': 'k3y-value' }, credential)).toBeNull();
  });
  it('answers 401 JSON for a missing key and 403 JSON for a wrong one', () => {
    expect(checkApiKey({}, credential)).toMatchObject({
      statusCode: 401,
      body: { error: { code: 'unauthenticated' } },
    });
    expect(checkApiKey({ 'x-api-key': '' }, credential)?.statusCode).toBe(401);
    expect(checkApiKey({ 'x-api-key': 'k3y-valuE' }, credential)).toMatchObject({
      statusCode: 403,
      body: { error: { code: 'forbidden' } },
    });
    expect(checkApiKey({ 'x-api-key': 'k3y-value-and-more' }, credential)?.statusCode).toBe(403);
  });
  it('never lets anyone in when the credential is empty', () => {
    expect(checkApiKey({ 'x-api-key': '' }, { name: 'X-API-Key', value: '' })).toMatchObject({
      statusCode: 503,
      body: { error: { code: 'auth_not_configured' } },
    });
    expect(checkApiKey({ '': 'x' }, { name: '', value: 'x' })?.statusCode).toBe(503);
  });
});
