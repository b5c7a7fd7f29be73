import { describe, expect, it } from 'vitest';

import { SystemOneApi } from '../../../credentials/SystemOneApi.credentials';
import { SystemOneInboundKeyApi } from '../../../credentials/SystemOneInboundKeyApi.credentials';

describe('System One API credential', () => {
  const credential = new SystemOneApi();

  it('sends the key as a Bearer header, keeping the request headers', async () => {
    const options = await credential.authenticate(
      { baseUrl: 'http://x', apiKey: 'k-123' },
      { url: '/v1/systemone', headers: { 'X-Request-Id': 'r1' } },
    );
    expect(options.headers).toEqual({ 'X-Request-Id': 'r1', Authorization: 'Bearer k-123' });
    expect(options.url).toBe('/v1/systemone');
  });

  it('is tested with GET /v1/models on the base URL, and hides the key', () => {
    expect(credential.test.request.url).toBe('/v1/models');
    expect(credential.test.request.baseURL).toContain('$credentials.baseUrl');
    expect(credential.properties.find((property) => property.name === 'apiKey')?.typeOptions?.password).toBe(true);
  });
});

describe('System One inbound key credential', () => {
  it('holds one password field', () => {
    const credential = new SystemOneInboundKeyApi();
    expect(credential.name).toBe('systemOneInboundKeyApi');
    expect(credential.properties.map((property) => [property.name, property.typeOptions?.password])).toEqual([
      ['apiKey', true],
    ]);
  });
});
