import { describe, expect, it } from 'vitest';
import { parseWhen } from '../../src/schedule/when';
import { WHEN_MESSAGES } from '../../src/schedule/schedule-messages';

const read = (text: string, now: string, timeZone: string, locale: string) => {
  const result = parseWhen(text, { now: new Date(now), timeZone, locale });
  if (!result.ok) throw new Error(result.message);
  return result;
};
const instant = (text: string, now: string, timeZone: string, locale: string) =>
  read(text, now, timeZone, locale).at.toISOString();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** One language's phrases; the instants are for a zone on Central European time (Lisbon's are an hour later). */
interface LanguageCase {
  locale: string;
  zone: string;
  inTwoHours: string;
  inThreeDays: string;
  mondayAt1430: string;
  firstOfNovemberAt10: string;
  tomorrow: string;
  dayAfterTomorrowAt10: string;
  todayAt9: string;
  /** What "in 2 hours" at 01:30 on the spring-forward night is understood as. */
  understood: string;
  /** More relative phrasings and how far ahead of `now` they are. */
  relatives: [string, number][];
}

const CASES: LanguageCase[] = [
  {
    locale: 'de-DE',
    zone: 'Europe/Berlin',
    inTwoHours: 'in 2 Stunden',
    inThreeDays: 'in 3 Tagen',
    mondayAt1430: 'Montag um 14:30',
    firstOfNovemberAt10: '1. November 2026 um 10:00',
    tomorrow: 'morgen',
    dayAfterTomorrowAt10: 'übermorgen um 10',
    todayAt9: 'heute um 9',
    understood: 'Sonntag, 29. März 2026, 04:30 Uhr (Europe/Berlin)',
    relatives: [
      ['in 90 Minuten', 1.5 * HOUR],
      ['in einer Stunde', HOUR],
      ['in 1 Std. 30 Min.', 1.5 * HOUR],
      ['in 1 Stunde und 30 Minuten', 1.5 * HOUR],
      ['in anderthalb Stunden', 1.5 * HOUR],
      ['in einer halben Stunde', 0.5 * HOUR],
      ['in einer Viertelstunde', 0.25 * HOUR],
      ['in 1,5 Stunden', 1.5 * HOUR],
      ['in einem Tag', DAY],
      ['in zwei Wochen', 14 * DAY],
    ],
  },
  {
    locale: 'fr-FR',
    zone: 'Europe/Paris',
    inTwoHours: 'dans 2 heures',
    inThreeDays: 'dans 3 jours',
    mondayAt1430: 'lundi à 14h30',
    firstOfNovemberAt10: '1er novembre 2026 à 10h',
    tomorrow: 'demain',
    dayAfterTomorrowAt10: 'après-demain à 10h',
    todayAt9: "aujourd'hui à 9h",
    understood: 'dimanche 29 mars 2026 à 04:30 (Europe/Paris)',
    relatives: [
      ['dans 90 minutes', 1.5 * HOUR],
      ['dans une heure', HOUR],
      ['dans 1h30', 1.5 * HOUR],
      ['dans une heure et demie', 1.5 * HOUR],
      ['dans une demi-heure', 0.5 * HOUR],
      ['dans un quart d’heure', 0.25 * HOUR],
      ["d'ici 2 heures", 2 * HOUR],
      ['dans un jour', DAY],
      ['dans deux semaines', 14 * DAY],
    ],
  },
  {
    locale: 'es-ES',
    zone: 'Europe/Madrid',
    inTwoHours: 'en 2 horas',
    inThreeDays: 'en 3 días',
    mondayAt1430: 'el lunes a las 14:30',
    firstOfNovemberAt10: '1 de noviembre de 2026 a las 10:00',
    tomorrow: 'mañana',
    dayAfterTomorrowAt10: 'pasado mañana a las 10',
    todayAt9: 'hoy a las 9',
    understood: 'domingo 29 de marzo de 2026, a las 04:30 (Europe/Madrid)',
    relatives: [
      ['en 90 minutos', 1.5 * HOUR],
      ['en una hora', HOUR],
      ['dentro de 1 hora y 30 minutos', 1.5 * HOUR],
      ['en una hora y media', 1.5 * HOUR],
      ['en media hora', 0.5 * HOUR],
      ['en un cuarto de hora', 0.25 * HOUR],
      ['en un día', DAY],
      ['en dos semanas', 14 * DAY],
    ],
  },
  {
    locale: 'pt-PT',
    zone: 'Europe/Lisbon',
    inTwoHours: 'em 2 horas',
    inThreeDays: 'em 3 dias',
    mondayAt1430: 'segunda-feira às 14:30',
    firstOfNovemberAt10: '1 de novembro de 2026 às 10:00',
    tomorrow: 'amanhã',
    dayAfterTomorrowAt10: 'depois de amanhã às 10',
    todayAt9: 'hoje às 9',
    understood: 'domingo, 29 de março de 2026, às 03:30 (Europe/Lisbon)',
    relatives: [
      ['em 90 minutos', 1.5 * HOUR],
      ['em uma hora', HOUR],
      ['daqui a 1 hora e 30 minutos', 1.5 * HOUR],
      ['em uma hora e meia', 1.5 * HOUR],
      ['daqui a meia hora', 0.5 * HOUR],
      ['em um quarto de hora', 0.25 * HOUR],
      ['dentro de um dia', DAY],
      ['em duas semanas', 14 * DAY],
    ],
  },
  {
    locale: 'nl-NL',
    zone: 'Europe/Amsterdam',
    inTwoHours: 'over 2 uur',
    inThreeDays: 'over 3 dagen',
    mondayAt1430: 'maandag om 14:30',
    firstOfNovemberAt10: '1 november 2026 om 10:00',
    tomorrow: 'morgen',
    dayAfterTomorrowAt10: 'overmorgen om 10 uur',
    todayAt9: 'vandaag om 9 uur',
    understood: 'zondag 29 maart 2026 om 04:30 (Europe/Amsterdam)',
    relatives: [
      ['over 90 minuten', 1.5 * HOUR],
      ['over een uur', HOUR],
      ['over 1 uur en 30 minuten', 1.5 * HOUR],
      ['over anderhalf uur', 1.5 * HOUR],
      ['over een half uur', 0.5 * HOUR],
      ['over een kwartier', 0.25 * HOUR],
      ['over een dag', DAY],
      ['over twee weken', 14 * DAY],
    ],
  },
  {
    locale: 'it-IT',
    zone: 'Europe/Rome',
    inTwoHours: 'tra 2 ore',
    inThreeDays: 'tra 3 giorni',
    mondayAt1430: 'lunedì alle 14:30',
    firstOfNovemberAt10: '1 novembre 2026 alle 10:00',
    tomorrow: 'domani',
    dayAfterTomorrowAt10: 'dopodomani alle 10',
    todayAt9: 'oggi alle 9',
    understood: 'domenica 29 marzo 2026 alle 04:30 (Europe/Rome)',
    relatives: [
      ['tra 90 minuti', 1.5 * HOUR],
      ["tra un'ora", HOUR],
      ['fra 1 ora e 30 minuti', 1.5 * HOUR],
      ["tra un'ora e mezza", 1.5 * HOUR],
      ["fra mezz'ora", 0.5 * HOUR],
      ["tra un quarto d'ora", 0.25 * HOUR],
      ['tra un giorno', DAY],
      ['tra due settimane', 14 * DAY],
    ],
  },
];

/** The instant `iso` names on Central European time, an hour later on Lisbon's clock (same wall-clock reading). */
const inZone = (iso: string, zone: string) =>
  new Date(Date.parse(iso) + (zone === 'Europe/Lisbon' ? HOUR : 0)).toISOString();

describe.each(CASES)('parseWhen in $locale ($zone)', (c) => {
  const { locale, zone } = c;

  it('a relative time in hours is elapsed time across both DST changes', () => {
    // Spring: 01:30 CET (00:30 WET) + 2 h, across the missing hour.
    expect(read(c.inTwoHours, '2026-03-29T00:30:00Z', zone, locale)).toEqual({
      ok: true,
      at: new Date('2026-03-29T02:30:00Z'),
      understood: c.understood,
    });
    // Autumn: 02:30 CEST (01:30 WEST) + 2 h, across the repeated hour.
    expect(instant(c.inTwoHours, '2026-10-25T00:30:00Z', zone, locale)).toBe('2026-10-25T02:30:00.000Z');
  });

  it('a relative time in days keeps the time of day across the DST change', () => {
    // Sat 21:00 → Tue 21:00, summer time by then.
    const now = inZone('2026-03-28T20:00:00Z', zone);
    expect(instant(c.inThreeDays, now, zone, locale)).toBe(inZone('2026-03-31T19:00:00.000Z', zone));
  });

  it('a weekday with a time, across the spring and the autumn change', () => {
    // Fri 10:00 (winter time) → Mon 14:30 (summer time).
    expect(instant(c.mondayAt1430, inZone('2026-03-27T09:00:00Z', zone), zone, locale)).toBe(
      inZone('2026-03-30T12:30:00.000Z', zone),
    );
    // Fri 10:00 (summer time) → Mon 14:30 (winter time).
    expect(instant(c.mondayAt1430, inZone('2026-10-23T08:00:00Z', zone), zone, locale)).toBe(
      inZone('2026-10-26T13:30:00.000Z', zone),
    );
  });

  it('an absolute date after the autumn change; tomorrow at the default hour; the day after tomorrow', () => {
    expect(instant(c.firstOfNovemberAt10, '2026-10-20T08:00:00Z', zone, locale)).toBe(
      inZone('2026-11-01T09:00:00.000Z', zone),
    );
    expect(instant(c.tomorrow, inZone('2026-03-27T09:00:00Z', zone), zone, locale)).toBe(
      inZone('2026-03-28T08:00:00.000Z', zone),
    );
    // Fri 10:00 (winter time) → Sun 10:00 (summer time).
    expect(instant(c.dayAfterTomorrowAt10, inZone('2026-03-27T09:00:00Z', zone), zone, locale)).toBe(
      inZone('2026-03-29T08:00:00.000Z', zone),
    );
  });

  it('more relative phrasings', () => {
    const now = '2026-05-04T10:00:00Z';
    for (const [text, ms] of c.relatives) {
      expect([text, instant(text, now, zone, locale)]).toEqual([text, new Date(Date.parse(now) + ms).toISOString()]);
    }
  });

  it('reads every example its refusal offers, and refuses in its language', () => {
    const messages = WHEN_MESSAGES[locale.slice(0, 2) as keyof typeof WHEN_MESSAGES];
    for (const example of messages.examples) {
      expect(parseWhen(example, { now: new Date('2026-03-30T06:00:00Z'), timeZone: zone, locale }).ok).toBe(true);
    }
    const unreadable = parseWhen('blah', { now: new Date('2026-03-30T08:00:00Z'), timeZone: zone, locale });
    expect(unreadable).toEqual({ ok: false, message: messages.unreadable('blah', zone) });
    const passed = parseWhen(c.todayAt9, { now: new Date('2026-03-30T08:00:00Z'), timeZone: zone, locale });
    expect(passed.ok).toBe(false);
    if (passed.ok) return;
    const at = messages.describe(Date.parse(inZone('2026-03-30T07:00:00Z', zone)), zone, locale);
    const now = messages.describe(Date.parse('2026-03-30T08:00:00Z'), zone, locale);
    expect(passed.message).toBe(messages.passed(c.todayAt9, at, now, zone));
  });
});

describe('parseWhen in Japanese', () => {
  it('reads relative and absolute times in Asia/Tokyo', () => {
    const now = '2026-03-28T01:00:00Z'; // Sat 10:00 JST.
    expect(read('2時間後', now, 'Asia/Tokyo', 'ja')).toEqual({
      ok: true,
      at: new Date('2026-03-28T03:00:00Z'),
      understood: '2026年3月28日(土) 12:00（Asia/Tokyo）',
    });
    expect(instant('1時間半後に', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-28T02:30:00.000Z');
    expect(instant('あと30分', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-28T01:30:00.000Z');
    expect(instant('３日後', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-31T01:00:00.000Z');
    expect(instant('三日後', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-31T01:00:00.000Z');
    expect(instant('2週間後', now, 'Asia/Tokyo', 'ja')).toBe('2026-04-11T01:00:00.000Z');
    expect(instant('明日9時', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-29T00:00:00.000Z');
    expect(instant('明日', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-29T00:00:00.000Z');
    expect(instant('明後日10時', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-30T01:00:00.000Z');
    expect(instant('明後日', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-30T00:00:00.000Z');
    expect(instant('今夜', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-28T11:00:00.000Z');
    expect(instant('月曜日14時30分', now, 'Asia/Tokyo', 'ja')).toBe('2026-03-30T05:30:00.000Z');
    expect(instant('2026年4月1日10時', now, 'Asia/Tokyo', 'ja')).toBe('2026-04-01T01:00:00.000Z');
  });

  it('reads them across the US spring change in America/Los_Angeles', () => {
    // 01:30 PST + 2 h = 04:30 PDT.
    expect(instant('2時間後', '2026-03-08T09:30:00Z', 'America/Los_Angeles', 'ja-JP')).toBe('2026-03-08T11:30:00.000Z');
    const now = '2026-03-07T17:00:00Z'; // Sat 09:00 PST.
    expect(instant('3日後', now, 'America/Los_Angeles', 'ja-JP')).toBe('2026-03-10T16:00:00.000Z');
    expect(instant('月曜日14時30分', now, 'America/Los_Angeles', 'ja-JP')).toBe('2026-03-09T21:30:00.000Z');
    expect(instant('2026年3月9日10時', now, 'America/Los_Angeles', 'ja-JP')).toBe('2026-03-09T17:00:00.000Z');
  });

  it('refuses in Japanese', () => {
    const now = new Date('2026-03-28T01:00:00Z');
    expect(parseWhen('blah', { now, timeZone: 'Asia/Tokyo', locale: 'ja' })).toEqual({
      ok: false,
      message:
        '「blah」を日時として読み取れませんでした。「2時間後」、「明日9時」、「月曜日14時30分」、「今夜」、' +
        '「2026-04-01 09:00」などの形で指定してください（タイムゾーンのない時刻はAsia/Tokyoの時刻です）。',
    });
    const passed = parseWhen('今日9時', { now, timeZone: 'Asia/Tokyo', locale: 'ja' });
    expect(passed).toMatchObject({
      ok: false,
      message: expect.stringContaining(
        '「今日9時」は2026年3月28日(土) 09:00（Asia/Tokyo）と解釈しましたが、すでに過ぎています',
      ),
    });
  });
});

describe('parseWhen and the locale', () => {
  const now = new Date('2026-03-30T08:00:00Z');

  it('refuses in German, word for word', () => {
    expect(parseWhen('blah', { now, timeZone: 'Europe/Berlin', locale: 'de' })).toEqual({
      ok: false,
      message:
        'Ich konnte "blah" nicht als Zeitpunkt lesen. Möglich ist zum Beispiel "in 2 Stunden", "morgen um 9", ' +
        '"Montag um 14:30", "heute Abend" oder "2026-04-01 09:00" (Zeiten ohne Zeitzone gelten in Europe/Berlin).',
    });
    expect(parseWhen('heute um 9', { now, timeZone: 'Europe/Berlin', locale: 'de-AT' })).toEqual({
      ok: false,
      message:
        'Ich habe "heute um 9" als Montag, 30. März 2026, 09:00 Uhr (Europe/Berlin) verstanden; das ist schon ' +
        'vorbei (jetzt ist Montag, 30. März 2026, 10:00 Uhr (Europe/Berlin)). Bitte einen Zeitpunkt in der ' +
        'Zukunft angeben, z. B. "in 2 Stunden" oder "morgen um 9".',
    });
  });

  it('a regional locale reads in its language and names months its way', () => {
    expect(read('1. Januar 2027 um 10:00', '2026-03-30T08:00:00Z', 'Europe/Vienna', 'de-AT').understood).toBe(
      'Freitag, 1. Jänner 2027, 10:00 Uhr (Europe/Vienna)',
    );
    expect(read('amanhã às 9', '2026-03-30T12:00:00Z', 'America/Sao_Paulo', 'pt-BR')).toMatchObject({
      at: new Date('2026-03-31T12:00:00Z'),
      understood: 'terça-feira, 31 de março de 2026, às 09:00 (America/Sao_Paulo)',
    });
  });

  it('falls back to English phrasings, answering in the user language', () => {
    expect(read('tomorrow at 9', '2026-03-30T08:00:00Z', 'Europe/Berlin', 'de')).toMatchObject({
      at: new Date('2026-03-31T07:00:00Z'),
      understood: 'Dienstag, 31. März 2026, 09:00 Uhr (Europe/Berlin)',
    });
    expect(instant('in 2 hours', '2026-03-30T08:00:00Z', 'Europe/Paris', 'fr')).toBe('2026-03-30T10:00:00.000Z');
  });

  it('an unsupported locale reads and answers in English (chrono has Russian, but we have no messages for it)', () => {
    expect(read('tomorrow at 9', '2026-03-30T08:00:00Z', 'Europe/Moscow', 'ru-RU')).toEqual({
      ok: true,
      at: new Date('2026-03-31T06:00:00Z'),
      understood: 'Tue 2026-03-31 09:00 Europe/Moscow',
    });
    const result = parseWhen('завтра в 9', { now, timeZone: 'Europe/Moscow', locale: 'ru-RU' });
    expect(result).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^I could not read "завтра в 9" as a time\. /),
    });
  });

  it('no locale, null or English is the English of before; a malformed locale names the field', () => {
    for (const locale of [undefined, null, 'en', 'en-GB']) {
      expect(parseWhen('tomorrow at 9', { now, timeZone: 'Europe/Vienna', locale })).toEqual({
        ok: true,
        at: new Date('2026-03-31T07:00:00Z'),
        understood: 'Tue 2026-03-31 09:00 Europe/Vienna',
      });
    }
    expect(() => parseWhen('morgen', { now, timeZone: 'UTC', locale: 'not a locale' })).toThrow(/^locale: /);
  });
});
