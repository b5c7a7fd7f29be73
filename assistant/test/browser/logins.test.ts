// Site logins from the Assistant Site Logins credential: parsed with errors that name the entry but never a value;
// a login's part and the sites it may be typed into; an unknown name lists the known ones.
import { describe, expect, it } from 'vitest';
import { loginValue, parseSiteLogins } from '../../src/browser/logins';
import { AssistantInputError } from '../../src/errors';

const LIST = JSON.stringify([
  { name: 'Shop', site: 'https://shop.example/login', username: 'me@example.com', password: 'hunter2-secret' },
  { name: 'bank', sites: ['https://bank.example', 'http://127.0.0.1:8080'], username: 'u', password: 'p' },
]);

const errorOf = (run: () => unknown): AssistantInputError => {
  try {
    run();
  } catch (error) {
    if (error instanceof AssistantInputError) return error;
    throw error;
  }
  throw new Error('expected an AssistantInputError');
};

describe('site logins', () => {
  it('reads the list; names match case-insensitively; sites become origins', () => {
    const logins = parseSiteLogins(LIST);
    expect(loginValue(logins, 'shop', 'password')).toEqual({
      value: 'hunter2-secret',
      sites: ['https://shop.example'],
      description: 'the password of the site login "Shop"',
    });
    expect(loginValue(logins, 'BANK', 'username')).toMatchObject({
      value: 'u',
      sites: ['https://bank.example', 'http://127.0.0.1:8080'],
    });
    expect(loginValue(logins, 'bank', '')).toMatchObject({ value: 'p' });
  });

  it('an unknown login lists the known names; a bad part is named', () => {
    const logins = parseSiteLogins(LIST);
    expect(errorOf(() => loginValue(logins, 'mail', 'password'))).toMatchObject({ field: 'login' });
    expect(errorOf(() => loginValue(logins, 'mail', 'password')).message).toMatch(/known ones: Shop, bank/);
    expect(errorOf(() => loginValue(parseSiteLogins(''), 'x', 'password')).message).toMatch(/none is set up/);
    expect(errorOf(() => loginValue(logins, 'shop', 'pin'))).toMatchObject({ field: 'part' });
  });

  it('names the broken entry, never a value', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['{', /not JSON/],
      ['{"name": "x"}', /JSON list/],
      [JSON.stringify([{ name: 'a', site: 'ftp://x', username: 'u', password: 'pw-123' }]), /entry 1 \("a"\): "site"/],
      [JSON.stringify([{ name: 'a', site: 'https://a.example', username: 'u' }]), /"password" is required/],
      [
        JSON.stringify([
          { name: 'a', site: 'https://a.example', username: 'u', password: 'pw-123' },
          { name: 'A', site: 'https://b.example', username: 'u', password: 'pw-123' },
        ]),
        /entry 2: the name "A" is used twice/,
      ],
    ];
    for (const [text, message] of cases) {
      const error = errorOf(() => parseSiteLogins(text));
      expect(error.field).toBe('logins');
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('pw-123');
    }
  });
});
