// Recurrences read in the user's language (locale), described and refused in it; next runs across the EU's spring
// DST change (2026-03-29, 01:00 UTC) in the user's zone, whatever the server's zone.
import { describe, expect, it } from 'vitest';
import { describeInstant, nextRun, parseSchedule, type Schedule } from '../../src';
import { scheduleLanguage } from '../../src/schedule/locale';
import { RECURRENCE_LANGUAGES } from '../../src/schedule/recurrence-grammars';

function schedule(text: string, timeZone: string, locale: string): Schedule {
  const parsed = parseSchedule(text, { timeZone, locale });
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

const BEFORE_THE_CHANGE = '2026-03-29T00:00:00Z';
const LANGUAGES = [
  {
    locale: 'en-GB',
    zone: 'Europe/London',
    interval: ['every 2 hours', 'every 120 minutes'],
    days: ['every 2 days', 'every 2 days at the time of the previous run, in Europe/London'],
    calendar: ['every Monday at 9', '0 9 * * 1', 'every Mon at 09:00 in Europe/London'],
    intervalRuns: ['Sun 2026-03-29 03:00', 'Sun 2026-03-29 05:00'],
  },
  {
    locale: 'de-AT',
    zone: 'Europe/Berlin',
    interval: ['alle 2 Stunden', 'alle 120 Minuten'],
    days: ['alle 2 Tage', 'alle 2 Tage zur Uhrzeit des vorigen Laufs, in Europe/Berlin'],
    calendar: ['jeden Montag um 9', '0 9 * * 1', 'jeden Montag um 09:00 Uhr in Europe/Berlin'],
    intervalRuns: ['Sun 2026-03-29 04:00', 'Sun 2026-03-29 06:00'],
  },
  {
    locale: 'fr-FR',
    zone: 'Europe/Paris',
    interval: ['toutes les 2 heures', 'toutes les 120 minutes'],
    days: ['tous les 2 jours', "tous les 2 jours à l'heure de l'exécution précédente, fuseau Europe/Paris"],
    calendar: ['chaque lundi à 9h', '0 9 * * 1', 'chaque lundi à 09:00, fuseau Europe/Paris'],
    intervalRuns: ['Sun 2026-03-29 04:00', 'Sun 2026-03-29 06:00'],
  },
  {
    locale: 'es',
    zone: 'Europe/Madrid',
    interval: ['cada 2 horas', 'cada 120 minutos'],
    days: ['cada 2 días', 'cada 2 días a la hora de la ejecución anterior, en Europe/Madrid'],
    calendar: ['cada lunes a las 9', '0 9 * * 1', 'cada lunes a las 09:00 en Europe/Madrid'],
    intervalRuns: ['Sun 2026-03-29 04:00', 'Sun 2026-03-29 06:00'],
  },
  {
    locale: 'pt-PT',
    zone: 'Europe/Lisbon',
    interval: ['a cada 2 horas', 'a cada 120 minutos'],
    days: ['a cada 2 dias', 'a cada 2 dias no horário da execução anterior, em Europe/Lisbon'],
    calendar: ['toda segunda às 9h', '0 9 * * 1', 'toda segunda-feira às 09:00 em Europe/Lisbon'],
    intervalRuns: ['Sun 2026-03-29 03:00', 'Sun 2026-03-29 05:00'],
  },
  {
    locale: 'nl-BE',
    zone: 'Europe/Amsterdam',
    interval: ['om de 2 uur', 'elke 120 minuten'],
    days: ['elke 2 dagen', 'elke 2 dagen op het tijdstip van de vorige uitvoering, in Europe/Amsterdam'],
    calendar: ['elke maandag om 9 uur', '0 9 * * 1', 'elke maandag om 09:00 in Europe/Amsterdam'],
    intervalRuns: ['Sun 2026-03-29 04:00', 'Sun 2026-03-29 06:00'],
  },
  {
    locale: 'it-CH',
    zone: 'Europe/Rome',
    interval: ['ogni 2 ore', 'ogni 120 minuti'],
    days: ['ogni 2 giorni', "ogni 2 giorni all'ora dell'esecuzione precedente, fuso orario Europe/Rome"],
    calendar: ['ogni lunedì alle 9', '0 9 * * 1', 'ogni lunedì alle 09:00, fuso orario Europe/Rome'],
    intervalRuns: ['Sun 2026-03-29 04:00', 'Sun 2026-03-29 06:00'],
  },
];

describe.each(LANGUAGES)(
  'recurrences in $locale ($zone)',
  ({ locale, zone, interval, days, calendar, intervalRuns }) => {
    it('an interval: elapsed minutes across the DST change, described in the language', () => {
      const every2h = schedule(interval[0], zone, locale);
      expect(every2h).toEqual({ ok: true, kind: 'interval', unit: 'minutes', every: 120, description: interval[1] });
      expect(runs(every2h, BEFORE_THE_CHANGE, zone, 2)).toEqual(intervalRuns);
    });

    it('an interval of days keeps the local time across the DST change', () => {
      const every2d = schedule(days[0], zone, locale);
      expect(every2d).toEqual({ ok: true, kind: 'interval', unit: 'days', every: 2, description: days[1] });
      const start = new Date('2026-03-28T07:00:00Z');
      const local = (at: Date) => describeInstant(at, zone).replace(` ${zone}`, '');
      expect(local(nextRun(every2d, start, zone))).toBe(local(start).replace('Sat 2026-03-28', 'Mon 2026-03-30'));
    });

    it('a weekday with a time stays 09:00 local across the DST change', () => {
      const monday = schedule(calendar[0], zone, locale);
      expect(monday).toEqual({ ok: true, kind: 'calendar', cron: calendar[1], description: calendar[2] });
      expect(runs(monday, '2026-03-20T12:00:00Z', zone, 2)).toEqual(['Mon 2026-03-23 09:00', 'Mon 2026-03-30 09:00']);
      const offsetHours = zone === 'Europe/London' || zone === 'Europe/Lisbon' ? 1 : 2;
      expect(nextRun(monday, new Date('2026-03-27T12:00:00Z'), zone)).toEqual(
        new Date(Date.UTC(2026, 2, 30, 9 - offsetHours)),
      );
    });

    it('reads cron, and every example its refusals name', () => {
      expect(parseSchedule('30 7 * * 1-5', { timeZone: zone, locale })).toMatchObject({
        ok: true,
        cron: '30 7 * * 1-5',
        description: expect.stringContaining(zone),
      });
      const { examples } = RECURRENCE_LANGUAGES[scheduleLanguage(locale)].phrases;
      for (const example of examples)
        expect(parseSchedule(example, { timeZone: zone, locale }), example).toMatchObject({ ok: true });
    });
  },
);

describe('the phrases each grammar reads', () => {
  const CASES: Record<string, Array<[string, string | number]>> = {
    de: [
      ['werktags um 7:30', '30 7 * * 1-5'],
      ['täglich um 18 Uhr', '0 18 * * *'],
      ['jeden Tag um 9 Uhr abends', '0 21 * * *'],
      ['Montags und Donnerstags um 9:15', '15 9 * * 1,4'],
      ['Mo-Fr um 7:30', '30 7 * * 1-5'],
      ['von Montag bis Freitag um 7.30 Uhr', '30 7 * * 1-5'],
      ['um 7:30 werktags', '30 7 * * 1-5'],
      ['am Wochenende um 10', '0 10 * * 0,6'],
      ['jede halbe Stunde', 30],
      ['stündlich', 60],
      ['alle 15 Minuten', 15],
    ],
    fr: [
      ['tous les jours à 7h30', '30 7 * * *'],
      ['du lundi au vendredi à 7h30', '30 7 * * 1-5'],
      ['en semaine à 7h30', '30 7 * * 1-5'],
      ['les lundis et jeudis à 9h15', '15 9 * * 1,4'],
      ['le week-end à midi', '0 12 * * 0,6'],
      ['à 7h30 en semaine', '30 7 * * 1-5'],
      ['tous les jours à 8h du soir', '0 20 * * *'],
      ['toutes les demi-heures', 30],
      ['toutes les heures', 60],
      ['toutes les 15 minutes', 15],
    ],
    es: [
      ['todos los días a las 7:30', '30 7 * * *'],
      ['de lunes a viernes a las 7:30', '30 7 * * 1-5'],
      ['los lunes y jueves a las 9:15', '15 9 * * 1,4'],
      ['los fines de semana a las 10', '0 10 * * 0,6'],
      ['a las 7:30 entre semana', '30 7 * * 1-5'],
      ['cada día a las 8 de la tarde', '0 20 * * *'],
      ['cada media hora', 30],
      ['cada hora', 60],
      ['cada 15 minutos', 15],
    ],
    pt: [
      ['todos os dias às 7h30', '30 7 * * *'],
      ['de segunda a sexta às 7h30', '30 7 * * 1-5'],
      ['segundas e quintas às 9h15', '15 9 * * 1,4'],
      ['nos fins de semana às 10h', '0 10 * * 0,6'],
      ['às 7h30 nos dias úteis', '30 7 * * 1-5'],
      ['toda terça-feira às 8 da noite', '0 20 * * 2'],
      ['de 15 em 15 minutos', 15],
      ['a cada meia hora', 30],
      ['toda hora', 60],
    ],
    nl: [
      ['elke dag om 7:30', '30 7 * * *'],
      ['maandag t/m vrijdag om 7:30', '30 7 * * 1-5'],
      ['werkdagen om 7:30', '30 7 * * 1-5'],
      ['maandag en donderdag om 9:15', '15 9 * * 1,4'],
      ['in het weekend om 10 uur', '0 10 * * 0,6'],
      ['om 7:30 op werkdagen', '30 7 * * 1-5'],
      ["elke dinsdag om 8 uur 's avonds", '0 20 * * 2'],
      ['elk half uur', 30],
      ['elk uur', 60],
      ['elke 15 minuten', 15],
    ],
    it: [
      ['ogni giorno alle 7:30', '30 7 * * *'],
      ['dal lunedì al venerdì alle 7:30', '30 7 * * 1-5'],
      ['il lunedì e il giovedì alle 9:15', '15 9 * * 1,4'],
      ['nel fine settimana alle 10', '0 10 * * 0,6'],
      ['alle 7:30 nei giorni feriali', '30 7 * * 1-5'],
      ['ogni martedì alle 8 di sera', '0 20 * * 2'],
      ["ogni mezz'ora", 30],
      ['ogni ora', 60],
      ['ogni 15 minuti', 15],
    ],
  };
  it.each(Object.entries(CASES))('%s', (locale, cases) => {
    for (const [text, expected] of cases) {
      const parsed = parseSchedule(text, { timeZone: 'Europe/Berlin', locale });
      if (typeof expected === 'number') {
        expect(parsed, text).toMatchObject({ ok: true, kind: 'interval', unit: 'minutes', every: expected });
      } else {
        expect(parsed, text).toMatchObject({ ok: true, kind: 'calendar', cron: expected });
      }
    }
  });

  it('a time in the spring gap runs when the clocks jump (German)', () => {
    const sunday = schedule('jeden Sonntag um 2:30', 'Europe/Berlin', 'de');
    expect(runs(sunday, '2026-03-27T12:00:00Z', 'Europe/Berlin', 2)).toEqual([
      'Sun 2026-03-29 03:00',
      'Sun 2026-04-05 02:30',
    ]);
  });

  it('English phrases are read in every language and described in it', () => {
    expect(parseSchedule('every weekday at 7:30', { timeZone: 'Europe/Berlin', locale: 'de' })).toEqual({
      ok: true,
      kind: 'calendar',
      cron: '30 7 * * 1-5',
      description: 'werktags (Mo–Fr) um 07:30 Uhr in Europe/Berlin',
    });
    expect(parseSchedule('every Monday at 9', { timeZone: 'Asia/Tokyo', locale: 'ja-JP' })).toEqual({
      ok: true,
      kind: 'calendar',
      cron: '0 9 * * 1',
      description: '毎週月曜日 09:00（Asia/Tokyo）',
    });
  });
});

describe('refusals in the user language', () => {
  it('German: the problem and the German forms, or cron', () => {
    const refuse = (text: string) => parseSchedule(text, { timeZone: 'Europe/Berlin', locale: 'de-DE' });
    expect(refuse('manchmal')).toEqual({
      ok: false,
      message:
        'Ich konnte „manchmal“ nicht als Zeitplan lesen. Zum Beispiel: „alle 15 Minuten“, „werktags um 7:30“, ' +
        '„jeden Montag um 9“, „täglich um 18:00“ oder eine Cron-Zeile „30 7 * * 1-5“.',
    });
    for (const [text, words] of [
      ['alle 30 Sekunden', 'höchstens einmal pro Minute'],
      ['alle 0 Minuten', 'mindestens 1'],
      ['alle 1,5 Tage', 'ganze Tage'],
      ['alle 2 Wochen', 'Tag und Uhrzeit'],
      ['jeden Montag', 'braucht eine Uhrzeit'],
      ['jeden Funtag um 9', 'die Tage'],
      ['jeden Montag um 25 Uhr', 'die Uhrzeit'],
      ['0 7 * *', 'braucht 5 Felder'],
      ['61 * * * *', 'keine gültige Cron-Zeile'],
      ['0 0 31 2 *', 'läuft nie'],
      ['', 'leer'],
    ]) {
      expect(refuse(text), text).toMatchObject({ ok: false, message: expect.stringContaining(words) });
      expect((refuse(text) as { message: string }).message, text).toContain('„jeden Montag um 9“');
    }
  });

  it.each([
    ['fr', 'parfois', "Je n'ai pas pu lire « parfois »", '« chaque lundi à 9h »'],
    ['es', 'a veces', 'No he podido leer «a veces»', '«cada lunes a las 9»'],
    ['pt-BR', 'às vezes', 'Não consegui ler "às vezes"', '"toda segunda às 9h"'],
    ['nl', 'soms', 'Ik kon "soms" niet als schema lezen', '"elke maandag om 9 uur"'],
    ['it', 'a volte', 'Non sono riuscito a leggere «a volte»', '«ogni lunedì alle 9»'],
    ['fr', 'chaque lundi', "« chaque lundi » : il manque l'heure", 'ligne cron « 30 7 * * 1-5 »'],
    ['es', 'cada 2 semanas', '«cada 2 semanas»: indica el día y la hora', 'línea cron «30 7 * * 1-5»'],
  ])('%s: "%s"', (locale, text, why, example) => {
    const result = parseSchedule(text, { timeZone: 'Europe/Paris', locale });
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining(why) });
    expect((result as { message: string }).message).toContain(example);
  });

  it('Japanese (no grammar of its own): the answer in Japanese, naming the English forms and cron it reads', () => {
    expect(parseSchedule('毎週月曜日9時', { timeZone: 'Asia/Tokyo', locale: 'ja' })).toEqual({
      ok: false,
      message:
        '「毎週月曜日9時」をスケジュールとして読み取れませんでした。繰り返しの指定は日本語ではまだ読めません。' +
        '英語の表現か cron 行で指定してください。例: 「every 15 minutes」、「every weekday at 7:30」、' +
        '「every Monday at 9」、「daily at 18:00」または cron 行「30 7 * * 1-5」。',
    });
    expect(parseSchedule('30 7 * * 1-5', { timeZone: 'Asia/Tokyo', locale: 'ja' })).toMatchObject({
      ok: true,
      description: 'cron「30 7 * * 1-5」（Asia/Tokyo）',
    });
  });

  it('English stays as it was, with or without a locale; a bad locale names the field', () => {
    for (const text of [
      'sometimes',
      'every weekday',
      'every 30 seconds',
      '0 7 * *',
      'every weekday at 7:30',
      'every 2 days',
    ]) {
      expect(parseSchedule(text, { timeZone: 'UTC', locale: 'en-US' }), text).toEqual(
        parseSchedule(text, { timeZone: 'UTC' }),
      );
    }
    expect(parseSchedule('sometimes', { timeZone: 'UTC' })).toEqual({
      ok: false,
      message:
        'I could not read "sometimes" as a schedule. Try, for example, "every 15 minutes", "every weekday at 7:30", ' +
        '"every Monday at 9", "daily at 18:00" or a cron line "30 7 * * 1-5".',
    });
    expect(() => parseSchedule('every hour', { timeZone: 'UTC', locale: 'not a locale' })).toThrow(/^locale: /);
  });
});
