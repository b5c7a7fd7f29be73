// Where a connection to the black-hole proxy was headed, from the first line Chromium sends it (host and port only).
import { describe, expect, it } from 'vitest';

import { proxyTarget } from '../../src/browser/chromium';

describe('proxyTarget', () => {
  it('reads CONNECT and absolute-URL requests, and nothing of the path', () => {
    expect(proxyTarget('CONNECT accounts.google.com:443 HTTP/1.1\r\nHost: accounts.google.com:443\r\n\r\n')).toBe(
      'accounts.google.com:443',
    );
    expect(proxyTarget('GET http://127.0.0.1:8080/secret?token=1 HTTP/1.1\r\n')).toBe('127.0.0.1:8080');
    expect(proxyTarget('POST http://update.example/json HTTP/1.1\r\n')).toBe('update.example:80');
    expect(proxyTarget('garbage')).toBe('unknown');
  });
});
