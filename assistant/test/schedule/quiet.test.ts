import { describe, expect, it } from 'vitest';
import { cooledDown, isQuiet, nextAllowed, nudgeAllowedAt } from '../../src';

const night = { start: '22:00', end: '07:00' };

describe('quiet hours', () => {
  it('cross midnight, on the user clock', () => {
    expect(isQuiet(new Date('2026-03-30T20:30:00Z'), 'Europe/Vienna', night)).toBe(true); // 22:30
    expect(isQuiet(new Date('2026-03-30T03:00:00Z'), 'Europe/Vienna', night)).toBe(true); // 05:00
    expect(isQuiet(new Date('2026-03-30T05:00:00Z'), 'Europe/Vienna', night)).toBe(false); // 07:00
    expect(isQuiet(new Date('2026-03-30T19:59:00Z'), 'Europe/Vienna', night)).toBe(false); // 21:59
    // The same instant is day in New York and night in Kolkata.
    expect(isQuiet(new Date('2026-03-30T18:00:00Z'), 'America/New_York', night)).toBe(false);
    expect(isQuiet(new Date('2026-03-30T18:00:00Z'), 'Asia/Kolkata', night)).toBe(true);
  });

  it('within a day', () => {
    const lunch = { start: '12:00', end: '13:30' };
    expect(isQuiet(new Date('2026-03-30T12:45:00Z'), 'UTC', lunch)).toBe(true);
    expect(isQuiet(new Date('2026-03-30T13:30:00Z'), 'UTC', lunch)).toBe(false);
  });

  it('nextAllowed is the end of the quiet hours, or now', () => {
    const evening = new Date('2026-03-30T20:30:00Z');
    expect(nextAllowed(evening, 'Europe/Vienna', night)).toEqual(new Date('2026-03-31T05:00:00Z'));
    expect(nextAllowed(new Date('2026-03-31T02:00:00Z'), 'Europe/Vienna', night)).toEqual(
      new Date('2026-03-31T05:00:00Z'),
    );
    const day = new Date('2026-03-30T10:00:00Z');
    expect(nextAllowed(day, 'Europe/Vienna', night)).toBe(day);
    // Across the spring change the night is an hour shorter: 07:00 CEST.
    expect(nextAllowed(new Date('2026-03-28T22:00:00Z'), 'Europe/Vienna', night)).toEqual(
      new Date('2026-03-29T05:00:00Z'),
    );
    // Sydney, 2026-04-05: 23:00 AEDT → 07:00 AEST, an hour longer.
    expect(nextAllowed(new Date('2026-04-04T12:00:00Z'), 'Australia/Sydney', night)).toEqual(
      new Date('2026-04-04T21:00:00Z'),
    );
    // An end inside the DST gap (02:30 does not exist) is the first valid minute, 03:00.
    expect(nextAllowed(new Date('2026-03-28T22:00:00Z'), 'Europe/Vienna', { start: '22:00', end: '02:30' })).toEqual(
      new Date('2026-03-29T01:00:00Z'),
    );
  });

  it('names the field of bad quiet hours', () => {
    expect(() => isQuiet(new Date(), 'UTC', { start: '25:00', end: '07:00' })).toThrow(/^quietHours.start: /);
    expect(() => isQuiet(new Date(), 'UTC', { start: '07:00', end: '07:00' })).toThrow(/^quietHours.end: /);
    expect(() => isQuiet(new Date(), 'Moon/Base', night)).toThrow(/^timeZone: /);
  });
});

describe('cooldowns', () => {
  const now = new Date('2026-03-30T12:00:00Z');

  it('never the same nudge twice within the cooldown', () => {
    expect(cooledDown(null, now, 60)).toBe(true);
    expect(cooledDown(new Date('2026-03-30T11:30:00Z'), now, 60)).toBe(false);
    expect(cooledDown(new Date('2026-03-30T11:00:00Z'), now, 60)).toBe(true);
    expect(() => cooledDown(null, now, -1)).toThrow(/^cooldownMinutes: /);
  });

  it('nudgeAllowedAt combines the cooldown and the quiet hours', () => {
    // Sent at 21:30 Vienna, cooldown 60 min → 22:30, which is quiet → 07:00 the next morning.
    expect(
      nudgeAllowedAt({
        now: new Date('2026-03-30T19:45:00Z'),
        timeZone: 'Europe/Vienna',
        quiet: night,
        lastSentAt: new Date('2026-03-30T19:30:00Z'),
        cooldownMinutes: 60,
      }),
    ).toEqual(new Date('2026-03-31T05:00:00Z'));
    expect(nudgeAllowedAt({ now, timeZone: 'UTC', cooldownMinutes: 30 })).toEqual(now);
  });
});
