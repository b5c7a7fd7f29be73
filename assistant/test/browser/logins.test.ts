// Site logins from the Assistant Site Logins credential: parsed with errors that name the entry but never a value;
// a login's part and the sites it may be typed into; an unknown name lists the known ones; a login is typed only for
// the users it lists (the operator by default).
import { describe, expect, it } from 'vitest';
import { loginValue, parseSiteLogins } from '../../src/browser/logins';
import { AssistantInputError } from '../../src/errors';

const LIST = JSON.stringify([
  { name: 'Shop', site: 'https://shop.example/login', username: 'me@example.com', password: 'hunter2-secret' },
  {
    name: 'bank',
    sites: ['https://bank.example', 'http://127.0.0.1:8080'],
    username: 'u',
    password: 'p',
    users: ['owner', 'telegram:42'],
  },
  { name: 'family', site: 'https://tv.example', username: 'f', password: 'f-pass', users: 'api:anna' },
]);
/** Who asks: the operator, or a user by their identities. */
const OPERATOR = new Set(['owner', 'api:owner']);
const ANNA = new Set(['api:anna']);

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
    expect(loginValue(logins, 'shop', 'password', OPERATOR)).toEqual({
      value: 'hunter2-secret',
      sites: ['https://shop.example'],
      description: 'the password of the site login "Shop"',
    });
    expect(loginValue(logins, 'BANK', 'username', OPERATOR)).toMatchObject({
      value: 'u',
      sites: ['https://bank.example', 'http://127.0.0.1:8080'],
    });
    expect(loginValue(logins, 'bank', '', OPERATOR)).toMatchObject({ value: 'p' });
  });

  it('types a login only for the users it lists: the operator when it lists none', () => {
    const logins = parseSiteLogins(LIST);
    expect(loginValue(logins, 'family', 'password', ANNA)).toMatchObject({ value: 'f-pass' });
    expect(loginValue(logins, 'bank', 'password', new Set(['telegram:42']))).toMatchObject({ value: 'p' });
    for (const [name, holder] of [
      ['shop', ANNA],
      ['family', OPERATOR],
      ['bank', new Set(['telegram:43', 'api:42'])],
    ] as const) {
      const error = errorOf(() => loginValue(logins, name, 'password', holder));
      expect(error.field).toBe('login');
      expect(error.message).toMatch(/^login: the site login ".+" belongs to another user; the operator can share it/);
    }
    // The names listed are the asker's own.
    expect(errorOf(() => loginValue(logins, 'mail', 'password', ANNA)).message).toMatch(/known ones: family$/);
    expect(errorOf(() => loginValue(logins, 'mail', 'password', new Set(['api:ben']))).message).toMatch(
      /none is shared with you/,
    );
  });

  it('an unknown login lists the known names; a bad part is named', () => {
    const logins = parseSiteLogins(LIST);
    expect(errorOf(() => loginValue(logins, 'mail', 'password', OPERATOR))).toMatchObject({ field: 'login' });
    expect(errorOf(() => loginValue(logins, 'mail', 'password', OPERATOR)).message).toMatch(/known ones: Shop, bank$/);
    expect(errorOf(() => loginValue(parseSiteLogins(''), 'x', 'password', OPERATOR)).message).toMatch(/none is set up/);
    expect(errorOf(() => loginValue(logins, 'shop', 'pin', OPERATOR))).toMatchObject({ field: 'part' });
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
      [
        JSON.stringify([{ name: 'a', site: 'https://a.example', username: 'u', password: 'pw-123', users: ['anna'] }]),
        /entry 1 \("a"\): "users" must list "owner" or identities like "telegram:12345" or "api:alice"/,
      ],
      [
        JSON.stringify([{ name: 'a', site: 'https://a.example', username: 'u', password: 'pw-123', users: [] }]),
        /"users" must list/,
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
