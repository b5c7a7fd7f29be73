// ASSISTANT_OUTBOUND_ALLOW: host:port entries, comma or space separated, normalised; a bad entry names the setting.
import { describe, expect, it } from 'vitest';
import { AssistantInputError } from '../../src/errors';
import { outboundAllowList } from '../../src/outbound';

describe('outboundAllowList', () => {
  it('is empty when the setting is unset or blank', () => {
    expect(outboundAllowList({})).toEqual([]);
    expect(outboundAllowList({ ASSISTANT_OUTBOUND_ALLOW: ' , ' })).toEqual([]);
  });
  it('reads comma- and space-separated entries and normalises them', () => {
    expect(
      outboundAllowList({
        ASSISTANT_OUTBOUND_ALLOW:
          'LOCALHOST:8080, 127.0.0.1:3000 [::1]:9000,\n2130706433:80 [0:0:0:0:0:0:0:1]:1 svc.internal.:443',
      }),
    ).toEqual(['localhost:8080', '127.0.0.1:3000', '[::1]:9000', '127.0.0.1:80', '[::1]:1', 'svc.internal:443']);
  });
  it.each([
    'localhost',
    'localhost:0',
    'localhost:65536',
    'http://localhost:80',
    ':80',
    'a:b:80',
    '::1:80',
    'host:port',
  ])('refuses "%s", naming the setting and the entry', (entry) => {
    const run = () => outboundAllowList({ ASSISTANT_OUTBOUND_ALLOW: `localhost:1 ${entry}` });
    expect(run).toThrow(AssistantInputError);
    expect(run).toThrow(`ASSISTANT_OUTBOUND_ALLOW: "${entry}" is not a host:port entry`);
  });
});
