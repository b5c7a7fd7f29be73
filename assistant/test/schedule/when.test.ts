import { describe, expect, it } from 'vitest';
import { AssistantInputError, parseWhen } from '../../src';

const at = (text: string, now: string, timeZone: string) => {
  const result = parseWhen(text, { now: new Date(now), timeZone });
  if (!result.ok) throw new Error(result.message);
  return result;
};

describe('parseWhen', () => {
  it('reads day words on the user clock, in several zones', () => {
    // Mon 2026-03-30 10:00 in Vienna.
    const now = '2026-03-30T08:00:00Z';
    expect(at('tomorrow at 9', now, 'Europe/Vienna')).toEqual({
      ok: true,
      at: new Date('2026-03-31T07:00:00Z'),
      understood: 'Tue 2026-03-31 09:00 Europe/Vienna',
    });
    expect(at('tomorrow at 9', now, 'America/New_York').at).toEqual(new Date('2026-03-31T13:00:00Z'));
    expect(at('tomorrow at 9', now, 'Asia/Kolkata').at).toEqual(new Date('2026-03-31T03:30:00Z'));
    expect(at('tomorrow at 9', now, 'Australia/Sydney').understood).toBe('Tue 2026-03-31 09:00 Australia/Sydney');
    expect(at('tomorrow at 9', now, 'UTC').at).toEqual(new Date('2026-03-31T09:00:00Z'));
    expect(at('next Monday 14:30', now, 'Europe/Vienna').understood).toBe('Mon 2026-04-06 14:30 Europe/Vienna');
    expect(at('tonight', now, 'Europe/Vienna').understood).toBe('Mon 2026-03-30 20:00 Europe/Vienna');
    expect(at('tonight at 9', now, 'Europe/Vienna').understood).toBe('Mon 2026-03-30 21:00 Europe/Vienna');
    expect(at('this evening', now, 'America/New_York').understood).toBe('Mon 2026-03-30 20:00 America/New_York');
    expect(at('noon', now, 'Europe/Vienna').understood).toBe('Mon 2026-03-30 12:00 Europe/Vienna');
    expect(at('tomorrow', now, 'Asia/Kolkata').understood).toBe('Tue 2026-03-31 09:00 Asia/Kolkata');
    expect(at('friday 5pm', now, 'Europe/Vienna').understood).toBe('Fri 2026-04-03 17:00 Europe/Vienna');
    expect(at('Monday', now, 'Europe/Vienna').understood).toBe('Mon 2026-04-06 09:00 Europe/Vienna');
  });

  it('reads absolute dates and ISO 8601, with or without an offset', () => {
    const now = '2026-03-30T08:00:00Z';
    expect(at('2026-04-01T09:00', now, 'Europe/Vienna').at).toEqual(new Date('2026-04-01T07:00:00Z'));
    expect(at('2026-04-01 09:00', now, 'Australia/Sydney').at).toEqual(new Date('2026-03-31T22:00:00Z'));
    expect(at('2026-04-01T09:00+05:30', now, 'Europe/Vienna').at).toEqual(new Date('2026-04-01T03:30:00Z'));
    expect(at('2026-04-01T09:00:00Z', now, 'America/New_York').understood).toBe(
      'Wed 2026-04-01 05:00 America/New_York',
    );
    expect(at('2026-04-01', now, 'UTC').at).toEqual(new Date('2026-04-01T09:00:00Z'));
    expect(at('3 April 2026 10:00', now, 'Asia/Kolkata').at).toEqual(new Date('2026-04-03T04:30:00Z'));
    // A time that does not exist (spring gap) is the first valid minute after it.
    expect(at('2026-03-29 02:30', '2026-03-20T00:00:00Z', 'Europe/Vienna').understood).toBe(
      'Sun 2026-03-29 03:00 Europe/Vienna',
    );
    // A repeated hour is its first occurrence.
    expect(at('2026-10-25 02:30', '2026-10-20T00:00:00Z', 'Europe/Vienna').at).toEqual(
      new Date('2026-10-25T00:30:00Z'),
    );
  });

  it('"in 2 hours" is elapsed time: across midnight and across the EU and US DST changes', () => {
    // 23:00 in Kolkata → 01:00 the next day.
    expect(at('in 2 hours', '2026-03-30T17:30:00Z', 'Asia/Kolkata').understood).toBe(
      'Tue 2026-03-31 01:00 Asia/Kolkata',
    );
    // EU spring: 01:30 CET + 2 h = 04:30 CEST.
    expect(at('in 2 hours', '2026-03-29T00:30:00Z', 'Europe/Vienna')).toEqual({
      ok: true,
      at: new Date('2026-03-29T02:30:00Z'),
      understood: 'Sun 2026-03-29 04:30 Europe/Vienna',
    });
    // EU autumn: 02:30 CEST + 2 h = 03:30 CET.
    expect(at('in 2 hours', '2026-10-25T00:30:00Z', 'Europe/Vienna').understood).toBe(
      'Sun 2026-10-25 03:30 Europe/Vienna',
    );
    // US spring: 01:30 EST + 2 h = 04:30 EDT.
    expect(at('in 2 hours', '2026-03-08T06:30:00Z', 'America/New_York').understood).toBe(
      'Sun 2026-03-08 04:30 America/New_York',
    );
    // US autumn: 01:30 EDT + 2 h = 02:30 EST.
    expect(at('in 2 hours', '2026-11-01T05:30:00Z', 'America/New_York').at).toEqual(new Date('2026-11-01T07:30:00Z'));
    expect(at('in 90 minutes', '2026-03-30T08:00:00Z', 'UTC').at).toEqual(new Date('2026-03-30T09:30:00Z'));
    expect(at('in 1h 30m', '2026-03-30T08:00:00Z', 'UTC').at).toEqual(new Date('2026-03-30T09:30:00Z'));
    expect(at('in half an hour', '2026-03-30T08:00:00Z', 'UTC').at).toEqual(new Date('2026-03-30T08:30:00Z'));
    expect(at('2 hours from now', '2026-03-30T08:00:00Z', 'UTC').at).toEqual(new Date('2026-03-30T10:00:00Z'));
  });

  it('"in 3 days" keeps the time of day across a DST change', () => {
    // Sat 2026-03-28 21:00 CET → Tue 21:00 CEST (71 elapsed hours).
    expect(at('in 3 days', '2026-03-28T20:00:00Z', 'Europe/Vienna').understood).toBe(
      'Tue 2026-03-31 21:00 Europe/Vienna',
    );
    expect(at('in 1 day', '2026-10-31T13:00:00Z', 'America/New_York').understood).toBe(
      'Sun 2026-11-01 09:00 America/New_York',
    );
  });

  it('a past when is a sentence naming what was understood', () => {
    const result = parseWhen('today at 9', { now: new Date('2026-03-30T08:00:00Z'), timeZone: 'Europe/Vienna' });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.message).toContain('Mon 2026-03-30 09:00 in Europe/Vienna, which has already passed');
    expect(result.message).toContain('it is now Mon 2026-03-30 10:00 Europe/Vienna');
    const iso = parseWhen('2026-01-01 09:00', { now: new Date('2026-03-30T08:00:00Z'), timeZone: 'UTC' });
    expect(iso).toMatchObject({ ok: false, message: expect.stringContaining('2026-01-01 09:00 in UTC') });
  });

  it('an unreadable when is a sentence with examples', () => {
    for (const text of ['blah', '', 'whenever you like', '2026-02-30']) {
      const result = parseWhen(text, { now: new Date('2026-03-30T08:00:00Z'), timeZone: 'Europe/Vienna' });
      expect(result).toMatchObject({ ok: false, message: expect.stringContaining('"tomorrow at 9"') });
    }
  });

  it('rejects a bad zone, clock or text, naming the field', () => {
    const now = new Date('2026-03-30T08:00:00Z');
    expect(() => parseWhen('tomorrow', { now, timeZone: 'Mars/Base' })).toThrow(AssistantInputError);
    expect(() => parseWhen('tomorrow', { now, timeZone: 'Mars/Base' })).toThrow(/^timeZone: /);
    expect(() => parseWhen('tomorrow', { now: new Date('nope'), timeZone: 'UTC' })).toThrow(/^now: /);
    expect(() => parseWhen(42 as unknown as string, { now, timeZone: 'UTC' })).toThrow(/^when: /);
  });

  it('does not depend on the process time zone', () => {
    // Same answers for a reference where the process clock is in a different day than the user's.
    const now = '2026-03-30T23:30:00Z'; // Tue 01:30 in Vienna, Mon 16:30 in Los Angeles.
    expect(at('tomorrow at 9', now, 'Europe/Vienna').understood).toBe('Wed 2026-04-01 09:00 Europe/Vienna');
    expect(at('at 9', now, 'Europe/Vienna').understood).toBe('Tue 2026-03-31 09:00 Europe/Vienna');
    expect(at('tonight', now, 'Australia/Sydney').understood).toBe('Tue 2026-03-31 20:00 Australia/Sydney');
  });
});
