// The Set-Cookie lines of a document redirect (Chromium never sees that response): parsed as a browser would, with
// the default path, Max-Age and Expires, deletions, and cookies for another site ignored.
import { describe, expect, it } from 'vitest';

import { parseSetCookies } from '../../src/browser/set-cookie';

const NOW = Date.UTC(2025, 0, 1);

describe('parseSetCookies', () => {
  it('reads session and persistent cookies, deletions, and skips what a browser would not take', () => {
    const parsed = parseSetCookies(
      [
        'sid=abc=1; Path=/; HttpOnly; SameSite=Strict',
        'device=known; Max-Age=3600',
        'until=x; Expires=Wed, 01 Jan 2025 01:00:00 GMT; Secure; SameSite=None',
        'wide=1; Domain=.example.com',
        'gone=; Max-Age=0',
        'past=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/',
        'elsewhere=1; Domain=evil.example',
        'no-value',
      ],
      'https://www.example.com/account/login',
      NOW,
    );
    expect(parsed.set).toEqual([
      {
        name: 'sid',
        value: 'abc=1',
        domain: 'www.example.com',
        path: '/',
        expires: -1,
        secure: false,
        httpOnly: true,
        sameSite: 'Strict',
      },
      {
        name: 'device',
        value: 'known',
        domain: 'www.example.com',
        path: '/account',
        expires: NOW / 1000 + 3600,
        secure: false,
        httpOnly: false,
        sameSite: 'Lax',
      },
      {
        name: 'until',
        value: 'x',
        domain: 'www.example.com',
        path: '/account',
        expires: NOW / 1000 + 3600,
        secure: true,
        httpOnly: false,
        sameSite: 'None',
      },
      {
        name: 'wide',
        value: '1',
        domain: '.example.com',
        path: '/account',
        expires: -1,
        secure: false,
        httpOnly: false,
        sameSite: 'Lax',
      },
    ]);
    expect(parsed.clear).toEqual([
      { name: 'gone', domain: 'www.example.com', path: '/account' },
      { name: 'past', domain: 'www.example.com', path: '/' },
    ]);
  });
});
