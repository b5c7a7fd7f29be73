// The console's settings, its signed sessions and its limit on wrong passwords: pure, the clock given.
import { describe, expect, it } from 'vitest';
import { readConsoleSettings } from '../../src/server/console/settings';
import { cookieValue, passwordMatches, SessionSigner } from '../../src/server/console/session';
import { SignInLimit } from '../../src/server/console/sign-in-limit';

const fail = (field: string, reason: string) => new Error(`${field}: ${reason}`);

describe('console settings', () => {
  it('takes the password from JUDGE_CONSOLE_PASSWORD over the file, and is off without one', () => {
    expect(readConsoleSettings(undefined, {}, fail)).toEqual({ sessionHours: 12 });
    expect(
      readConsoleSettings(
        { password: 'from the file 1', sessionHours: 2 },
        { JUDGE_CONSOLE_PASSWORD: 'from the env 12' },
        fail,
      ),
    ).toEqual({ password: 'from the env 12', sessionHours: 2 });
  });

  it('refuses a short password, an unknown setting and a bad session length, naming the field', () => {
    expect(() => readConsoleSettings({}, { JUDGE_CONSOLE_PASSWORD: 'short' }, fail)).toThrow(
      'JUDGE_CONSOLE_PASSWORD: must be at least 12 characters',
    );
    expect(() => readConsoleSettings({ pasword: 'x' }, {}, fail)).toThrow('console.pasword: is not a console setting');
    expect(() => readConsoleSettings({ sessionHours: 0 }, {}, fail)).toThrow('console.sessionHours');
  });
});

describe('console sessions', () => {
  const signer = new SessionSigner('a long enough password', 3_600_000);

  it('reads back what it issued until it expires, with the same CSRF token', () => {
    const { cookie, session } = signer.issue(1_000);
    expect(signer.read(cookie, 2_000)).toEqual(session);
    expect(signer.read(cookie, 1_000 + 3_600_000)).toEqual({ refused: 'the session has expired' });
  });

  it('refuses a cookie signed with another password, or altered', () => {
    const { cookie } = new SessionSigner('another long password', 3_600_000).issue(1_000);
    expect(signer.read(cookie, 2_000)).toEqual({ refused: 'the session cookie is not valid' });
    const mine = signer.issue(1_000).cookie;
    const [v, , nonce, mac] = mine.split('.');
    expect(signer.read(`${v}.${Number.MAX_SAFE_INTEGER}.${nonce}.${mac}`, 2_000)).toEqual({
      refused: 'the session cookie is not valid',
    });
    expect(signer.read(undefined, 2_000)).toEqual({ refused: 'not signed in' });
  });

  it('gives each session its own CSRF token, and matches only it', () => {
    const a = signer.issue(1_000).session;
    const b = signer.issue(1_000).session;
    expect(a.csrfToken).not.toBe(b.csrfToken);
    expect(SessionSigner.csrfMatches(a, a.csrfToken)).toBe(true);
    expect(SessionSigner.csrfMatches(a, b.csrfToken)).toBe(false);
    expect(SessionSigner.csrfMatches(a, undefined)).toBe(false);
  });

  it('finds its cookie among others, and compares passwords whatever their length', () => {
    expect(cookieValue('a=1; judge_console=v1.x.y.z; b=2', 'judge_console')).toBe('v1.x.y.z');
    expect(cookieValue(undefined, 'judge_console')).toBeUndefined();
    expect(passwordMatches('a long enough password', 'a long enough password')).toBe(true);
    expect(passwordMatches('a long enough password', 'a')).toBe(false);
    expect(passwordMatches('a long enough password', 42)).toBe(false);
  });
});

describe('wrong passwords', () => {
  it('holds an address back after its limit, for what is left of the window, and everyone after the overall one', () => {
    const limit = new SignInLimit({ perAddress: 2, overall: 3, windowMs: 60_000 });
    limit.failed('a', 0);
    expect(limit.waitFor('a', 10)).toBe(0);
    limit.failed('a', 1_000);
    // a's first failure leaves the window at 60 000.
    expect(limit.waitFor('a', 10_000)).toBe(50_000);
    expect(limit.waitFor('b', 10_000)).toBe(0);
    limit.failed('b', 20_000);
    // Three failures in the window (0, 1 000, 20 000): everyone waits until the oldest leaves it.
    expect(limit.waitFor('c', 30_000)).toBe(30_000);
    expect(limit.waitFor('c', 60_500)).toBe(0);
    expect(limit.waitFor('a', 61_500)).toBe(0);
  });
});
