import { describe, expect, it } from 'vitest';
import { catchUp, describeInstant, missedRuns, nextRun, parseSchedule, type Schedule } from '../../src';

function schedule(text: string, timeZone = 'Europe/Vienna'): Schedule {
  const parsed = parseSchedule(text, { timeZone });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed;
}

/** The next `n` runs after `from`, named on the user's clock. */
function runs(s: Schedule, from: string, timeZone: string, n: number): string[] {
  const out: string[] = [];
  let at = new Date(from);
  for (let i = 0; i < n; i++) {
    at = nextRun(s, at, timeZone);
    out.push(describeInstant(at, timeZone).replace(` ${timeZone}`, ''));
  }
  return out;
}

describe('parseSchedule', () => {
  it('reads intervals, calendar rules and cron', () => {
    expect(parseSchedule('every 15 minutes', { timeZone: 'UTC' })).toMatchObject({
      kind: 'interval',
      unit: 'minutes',
      every: 15,
    });
    expect(parseSchedule('every 2 hours', { timeZone: 'UTC' })).toMatchObject({
      kind: 'interval',
      unit: 'minutes',
      every: 120,
    });
    expect(parseSchedule('every hour', { timeZone: 'UTC' })).toMatchObject({ every: 60 });
    expect(parseSchedule('every 3 days', { timeZone: 'UTC' })).toMatchObject({
      kind: 'interval',
      unit: 'days',
      every: 3,
    });
    expect(parseSchedule('every weekday at 7:30', { timeZone: 'Europe/Vienna' })).toEqual({
      ok: true,
      kind: 'calendar',
      cron: '30 7 * * 1-5',
      description: 'every weekday (Mon-Fri) at 07:30 in Europe/Vienna',
    });
    expect(parseSchedule('every Monday at 9', { timeZone: 'UTC' })).toMatchObject({ cron: '0 9 * * 1' });
    expect(parseSchedule('every day at 18:00', { timeZone: 'UTC' })).toMatchObject({ cron: '0 18 * * *' });
    expect(parseSchedule('daily at 6pm', { timeZone: 'UTC' })).toMatchObject({ cron: '0 18 * * *' });
    expect(parseSchedule('Mondays and Thursdays at 9:15', { timeZone: 'UTC' })).toMatchObject({ cron: '15 9 * * 1,4' });
    expect(parseSchedule('at 7:30 every weekday', { timeZone: 'UTC' })).toMatchObject({ cron: '30 7 * * 1-5' });
    expect(parseSchedule('30 7 * * 1-5', { timeZone: 'UTC' })).toMatchObject({
      kind: 'calendar',
      cron: '30 7 * * 1-5',
    });
  });

  it('refuses what it cannot run, with a sentence', () => {
    for (const [text, words] of [
      ['every 30 seconds', 'at most once a minute'],
      ['every 0 minutes', 'at least 1'],
      ['every weekday', 'needs a time of day'],
      ['every funday at 9', 'could not read the days'],
      ['every day at 25:00', 'time of day'],
      ['61 * * * *', 'not a valid cron line'],
      ['0 7 * *', 'needs 5 fields'],
      ['0 0 31 2 *', 'never runs'],
      ['sometimes', 'could not read'],
    ]) {
      const result = parseSchedule(text, { timeZone: 'UTC' });
      expect(result, text).toMatchObject({ ok: false, message: expect.stringContaining(words) });
      expect((result as { message: string }).message).toContain('every weekday at 7:30');
    }
    expect(() => parseSchedule('every hour', { timeZone: 'Nowhere/Land' })).toThrow(/^timeZone: /);
  });
});

describe('nextRun', () => {
  it('"every weekday at 7:30" stays 7:30 local across the EU and US DST changes', () => {
    expect(runs(schedule('every weekday at 7:30'), '2026-03-26T12:00:00Z', 'Europe/Vienna', 3)).toEqual([
      'Fri 2026-03-27 07:30',
      'Mon 2026-03-30 07:30',
      'Tue 2026-03-31 07:30',
    ]);
    expect(nextRun(schedule('every weekday at 7:30'), new Date('2026-03-27T12:00:00Z'), 'Europe/Vienna')).toEqual(
      new Date('2026-03-30T05:30:00Z'),
    );
    const ny = schedule('every weekday at 7:30', 'America/New_York');
    expect(runs(ny, '2026-10-30T20:00:00Z', 'America/New_York', 2)).toEqual([
      'Mon 2026-11-02 07:30',
      'Tue 2026-11-03 07:30',
    ]);
    expect(nextRun(ny, new Date('2026-03-06T20:00:00Z'), 'America/New_York')).toEqual(new Date('2026-03-09T11:30:00Z'));
  });

  it('cron across DST: a missing time runs at the next valid minute, a repeated hour once', () => {
    const daily = schedule('30 2 * * *');
    expect(runs(daily, '2026-03-27T12:00:00Z', 'Europe/Vienna', 3)).toEqual([
      'Sat 2026-03-28 02:30',
      'Sun 2026-03-29 03:00',
      'Mon 2026-03-30 02:30',
    ]);
    expect(runs(daily, '2026-10-23T12:00:00Z', 'Europe/Vienna', 3)).toEqual([
      'Sat 2026-10-24 02:30',
      'Sun 2026-10-25 02:30',
      'Mon 2026-10-26 02:30',
    ]);
    // The first occurrence of the repeated 02:30 (CEST, 00:30Z), and not again an hour later.
    expect(nextRun(daily, new Date('2026-10-24T12:00:00Z'), 'Europe/Vienna')).toEqual(new Date('2026-10-25T00:30:00Z'));
    expect(nextRun(daily, new Date('2026-10-25T00:30:00Z'), 'Europe/Vienna')).toEqual(new Date('2026-10-26T01:30:00Z'));
    // Every 15 minutes by cron: the gap's readings collapse into one run at 03:00.
    expect(runs(schedule('*/15 * * * *'), '2026-03-29T00:40:00Z', 'Europe/Vienna', 3)).toEqual([
      'Sun 2026-03-29 01:45',
      'Sun 2026-03-29 03:00',
      'Sun 2026-03-29 03:15',
    ]);
    // US: 02:30 does not exist on 2026-03-08 in New York; on 2026-11-01 01:30 exists twice.
    const ny = schedule('30 2 * * *', 'America/New_York');
    expect(runs(ny, '2026-03-07T12:00:00Z', 'America/New_York', 2)).toEqual([
      'Sun 2026-03-08 03:00',
      'Mon 2026-03-09 02:30',
    ]);
    const nyEarly = schedule('30 1 * * *', 'America/New_York');
    expect(nextRun(nyEarly, new Date('2026-10-31T12:00:00Z'), 'America/New_York')).toEqual(
      new Date('2026-11-01T05:30:00Z'),
    );
    expect(nextRun(nyEarly, new Date('2026-11-01T05:30:00Z'), 'America/New_York')).toEqual(
      new Date('2026-11-02T06:30:00Z'),
    );
  });

  it('uses the zone it is given (Sydney, Kolkata)', () => {
    expect(
      nextRun(schedule('every Monday at 9', 'Australia/Sydney'), new Date('2026-04-01T00:00:00Z'), 'Australia/Sydney'),
    ).toEqual(
      new Date('2026-04-05T23:00:00Z'), // Mon 09:00 AEST (after the change on 2026-04-05)
    );
    expect(nextRun(schedule('daily at 9', 'Asia/Kolkata'), new Date('2026-04-01T00:00:00Z'), 'Asia/Kolkata')).toEqual(
      new Date('2026-04-01T03:30:00Z'),
    );
  });

  it('intervals: minutes are elapsed time, days keep the local time', () => {
    expect(nextRun(schedule('every 15 minutes'), new Date('2026-03-29T00:50:00Z'), 'Europe/Vienna')).toEqual(
      new Date('2026-03-29T01:05:00Z'),
    );
    expect(nextRun(schedule('every 2 days'), new Date('2026-03-28T07:00:00Z'), 'Europe/Vienna')).toEqual(
      new Date('2026-03-30T06:00:00Z'), // 08:00 CET → 08:00 CEST
    );
  });
});

describe('missed runs', () => {
  const weekday = schedule('every weekday at 7:30');

  it('counts the runs due while the system was down', () => {
    // Last run Fri 07:30, back Wed 10:00: Mon, Tue, Wed are due.
    const missed = missedRuns(
      weekday,
      new Date('2026-03-27T06:30:00Z'),
      new Date('2026-04-01T08:00:00Z'),
      'Europe/Vienna',
    );
    expect(missed).toEqual({
      count: 3,
      capped: false,
      first: new Date('2026-03-30T05:30:00Z'),
      last: new Date('2026-04-01T05:30:00Z'),
    });
    const every15 = missedRuns(
      schedule('every 15 minutes'),
      new Date('2026-03-30T08:00:00Z'),
      new Date('2026-03-30T09:00:00Z'),
      'UTC',
    );
    expect(every15.count).toBe(4);
  });

  it('catchUp runs once, late, with a note naming how many were missed', () => {
    const result = catchUp(
      weekday,
      new Date('2026-03-27T06:30:00Z'),
      new Date('2026-04-01T08:00:00Z'),
      'Europe/Vienna',
    );
    expect(result).toMatchObject({
      runNow: true,
      late: true,
      missed: 3,
      scheduledFor: new Date('2026-04-01T05:30:00Z'),
    });
    expect(result.note).toBe(
      'Missed 3 scheduled runs (from Mon 2026-03-30 07:30 Europe/Vienna to Wed 2026-04-01 07:30 Europe/Vienna) while ' +
        'the system was down; running once now, 2 h 30 min late, instead of catching up each one.',
    );
    expect(result.nextRun).toEqual(new Date('2026-04-02T05:30:00Z'));
  });

  it('on time: no note; on time after downtime: the earlier runs are named', () => {
    const onTime = catchUp(
      weekday,
      new Date('2026-03-30T05:30:00Z'),
      new Date('2026-03-31T05:31:00Z'),
      'Europe/Vienna',
    );
    expect(onTime).toMatchObject({ runNow: true, late: false, missed: 0, note: null });
    const notDue = catchUp(
      weekday,
      new Date('2026-03-30T05:30:00Z'),
      new Date('2026-03-30T12:00:00Z'),
      'Europe/Vienna',
    );
    expect(notDue).toMatchObject({ runNow: false, missed: 0, note: null, nextRun: new Date('2026-03-31T05:30:00Z') });
    const back = catchUp(weekday, new Date('2026-03-27T06:30:00Z'), new Date('2026-03-31T05:32:00Z'), 'Europe/Vienna');
    expect(back).toMatchObject({ runNow: true, late: false, missed: 1 });
    expect(back.note).toContain('Missed 1 scheduled run (due Mon 2026-03-30 07:30 Europe/Vienna)');
  });

  it('an interval keeps its grid after a late run', () => {
    const result = catchUp(
      schedule('every 15 minutes'),
      new Date('2026-03-30T08:00:00Z'),
      new Date('2026-03-30T09:10:00Z'),
      'UTC',
    );
    expect(result).toMatchObject({ runNow: true, late: true, missed: 4, nextRun: new Date('2026-03-30T09:15:00Z') });
  });
});
