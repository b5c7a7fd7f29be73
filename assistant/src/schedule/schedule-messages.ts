// What the assistant says about a one-off time, in the user's language: the moment it understood, and the two
// refusals (unreadable; already passed). English is the original wording, unchanged.
import { DateTime } from 'luxon';
import { scheduleLanguage, type ScheduleLanguage } from './locale';
import { describeInstant } from './zone';

export interface WhenMessages {
  /** Phrasings this language's reader understands, offered when a `when` could not be read. */
  examples: readonly string[];
  /** How a moment is named to the user (`locale` picks the weekday and month names). */
  describe(instant: number, zone: string, locale: string): string;
  /** `input` could not be read as a time. */
  unreadable(input: string, zone: string): string;
  /** `input` was read as `understood`, which is not after `now` (both already described). */
  passed(input: string, understood: string, now: string, zone: string): string;
}

/** `"a", "b" or "c"`: a list of quoted phrases. */
function quoted(items: readonly string[], or: string, open = '"', close = '"', comma = ', '): string {
  const all = items.map((item) => `${open}${item}${close}`);
  return `${all.slice(0, -1).join(comma)}${or}${all[all.length - 1]}`;
}

/** A moment in luxon's `format`, names in `locale`, followed by the zone. */
function localised(format: string, zoneOpen = ' (', zoneClose = ')') {
  return (instant: number, zone: string, locale: string) =>
    `${DateTime.fromMillis(instant, { zone, locale }).toFormat(format)}${zoneOpen}${zone}${zoneClose}`;
}

const en: WhenMessages = {
  examples: ['in 2 hours', 'tomorrow at 9', 'next Monday 14:30', 'tonight', '2026-04-01 09:00'],
  describe: (instant, zone) => describeInstant(instant, zone),
  unreadable: (input, zone) =>
    `I could not read "${input}" as a time. Try, for example, ${quoted(en.examples, ' or ')} ` +
    `(times without a zone are in ${zone}).`,
  passed: (input, understood, now, zone) => {
    const [day, ...rest] = understood.split(' ');
    return (
      `I understood "${input}" as ${day} ${rest[0]} ${rest[1]} in ${zone}, which has already passed ` +
      `(it is now ${now}). Please give a time in the future, e.g. "in 2 hours" or "tomorrow at 9".`
    );
  },
};

const de: WhenMessages = {
  examples: ['in 2 Stunden', 'morgen um 9', 'Montag um 14:30', 'heute Abend', '2026-04-01 09:00'],
  describe: localised("EEEE, d. MMMM yyyy, HH:mm 'Uhr'"),
  unreadable: (input, zone) =>
    `Ich konnte "${input}" nicht als Zeitpunkt lesen. Möglich ist zum Beispiel ${quoted(de.examples, ' oder ')} ` +
    `(Zeiten ohne Zeitzone gelten in ${zone}).`,
  passed: (input, understood, now) =>
    `Ich habe "${input}" als ${understood} verstanden; das ist schon vorbei (jetzt ist ${now}). ` +
    `Bitte einen Zeitpunkt in der Zukunft angeben, z. B. "in 2 Stunden" oder "morgen um 9".`,
};

const fr: WhenMessages = {
  examples: ['dans 2 heures', 'demain à 9h', 'lundi à 14h30', 'ce soir', '2026-04-01 09:00'],
  describe: localised("EEEE d MMMM yyyy 'à' HH:mm"),
  unreadable: (input, zone) =>
    `Je n'ai pas pu lire "${input}" comme une date. Essayez par exemple ${quoted(fr.examples, ' ou ')} ` +
    `(les heures sans fuseau horaire sont en ${zone}).`,
  passed: (input, understood, now) =>
    `J'ai compris "${input}" comme ${understood}, ce qui est déjà passé (il est maintenant ${now}). ` +
    `Indiquez un moment dans le futur, par exemple "dans 2 heures" ou "demain à 9h".`,
};

const es: WhenMessages = {
  examples: ['en 2 horas', 'mañana a las 9', 'el lunes a las 14:30', 'esta noche', '2026-04-01 09:00'],
  describe: localised("EEEE d 'de' MMMM 'de' yyyy, 'a las' HH:mm"),
  unreadable: (input, zone) =>
    `No pude leer "${input}" como una fecha y hora. Prueba, por ejemplo, ${quoted(es.examples, ' o ')} ` +
    `(las horas sin zona horaria son de ${zone}).`,
  passed: (input, understood, now) =>
    `Entendí "${input}" como ${understood}, que ya pasó (ahora es ${now}). ` +
    `Indica un momento en el futuro, por ejemplo "en 2 horas" o "mañana a las 9".`,
};

const pt: WhenMessages = {
  examples: ['em 2 horas', 'amanhã às 9', 'segunda-feira às 14:30', 'hoje à noite', '2026-04-01 09:00'],
  describe: localised("EEEE, d 'de' MMMM 'de' yyyy, 'às' HH:mm"),
  unreadable: (input, zone) =>
    `Não consegui ler "${input}" como uma data e hora. Tente, por exemplo, ${quoted(pt.examples, ' ou ')} ` +
    `(horários sem fuso horário são de ${zone}).`,
  passed: (input, understood, now) =>
    `Entendi "${input}" como ${understood}, que já passou (agora é ${now}). ` +
    `Indique um momento no futuro, por exemplo "em 2 horas" ou "amanhã às 9".`,
};

const nl: WhenMessages = {
  examples: ['over 2 uur', 'morgen om 9 uur', 'maandag om 14:30', 'vanavond', '2026-04-01 09:00'],
  describe: localised("EEEE d MMMM yyyy 'om' HH:mm"),
  unreadable: (input, zone) =>
    `Ik kon "${input}" niet als tijdstip lezen. Probeer bijvoorbeeld ${quoted(nl.examples, ' of ')} ` +
    `(tijden zonder tijdzone zijn in ${zone}).`,
  passed: (input, understood, now) =>
    `Ik heb "${input}" begrepen als ${understood}, en dat is al voorbij (het is nu ${now}). ` +
    `Geef een tijdstip in de toekomst, bijvoorbeeld "over 2 uur" of "morgen om 9 uur".`,
};

const it: WhenMessages = {
  examples: ['tra 2 ore', 'domani alle 9', 'lunedì alle 14:30', 'stasera', '2026-04-01 09:00'],
  describe: localised("EEEE d MMMM yyyy 'alle' HH:mm"),
  unreadable: (input, zone) =>
    `Non sono riuscito a leggere "${input}" come data e ora. Prova, per esempio, ${quoted(it.examples, ' o ')} ` +
    `(gli orari senza fuso orario sono in ${zone}).`,
  passed: (input, understood, now) =>
    `Ho inteso "${input}" come ${understood}, che è già passato (adesso è ${now}). ` +
    `Indica un momento nel futuro, per esempio "tra 2 ore" o "domani alle 9".`,
};

const ja: WhenMessages = {
  examples: ['2時間後', '明日9時', '月曜日14時30分', '今夜', '2026-04-01 09:00'],
  describe: localised("yyyy'年'M'月'd'日('EEE') 'HH:mm", '（', '）'),
  unreadable: (input, zone) =>
    `「${input}」を日時として読み取れませんでした。${quoted(ja.examples, '、', '「', '」', '、')}などの形で指定してください` +
    `（タイムゾーンのない時刻は${zone}の時刻です）。`,
  passed: (input, understood, now) =>
    `「${input}」は${understood}と解釈しましたが、すでに過ぎています（現在は${now}）。` +
    `「2時間後」や「明日9時」のように未来の日時を指定してください。`,
};

/** Each language's messages. */
export const WHEN_MESSAGES: Record<ScheduleLanguage, WhenMessages> = { en, de, fr, es, pt, nl, it, ja };

/** A moment as the assistant names it to a user with `locale` (English, as `describeInstant`, by default). */
export function describeInstantIn(instant: Date | number, zone: string, locale?: string | null): string {
  const ms = typeof instant === 'number' ? instant : instant.getTime();
  return WHEN_MESSAGES[scheduleLanguage(locale || undefined)].describe(ms, zone, locale || 'en');
}
