import { describe, expect, it } from 'vitest';
import { describeInstantIn, WHEN_MESSAGES } from '../../src/schedule/schedule-messages';
import { describeInstant } from '../../src/schedule/zone';

describe('describeInstantIn', () => {
  // Tue 2026-03-31 07:00 UTC: 09:00 in Berlin, 16:00 in Tokyo.
  const at = Date.parse('2026-03-31T07:00:00Z');

  it('is describeInstant in English, for no locale and for unsupported ones', () => {
    for (const locale of [undefined, null, '', 'en', 'en-US', 'ru-RU']) {
      expect(describeInstantIn(at, 'Europe/Berlin', locale)).toBe(describeInstant(at, 'Europe/Berlin'));
    }
    expect(describeInstantIn(new Date(at), 'Europe/Berlin')).toBe('Tue 2026-03-31 09:00 Europe/Berlin');
  });

  it('names the moment in each language, on the user clock', () => {
    expect(describeInstantIn(at, 'Europe/Berlin', 'de')).toBe('Dienstag, 31. März 2026, 09:00 Uhr (Europe/Berlin)');
    expect(describeInstantIn(at, 'Europe/Paris', 'fr')).toBe('mardi 31 mars 2026 à 09:00 (Europe/Paris)');
    expect(describeInstantIn(at, 'Europe/Madrid', 'es')).toBe(
      'martes 31 de marzo de 2026, a las 09:00 (Europe/Madrid)',
    );
    expect(describeInstantIn(at, 'Europe/Lisbon', 'pt')).toBe(
      'terça-feira, 31 de março de 2026, às 08:00 (Europe/Lisbon)',
    );
    expect(describeInstantIn(at, 'Europe/Amsterdam', 'nl')).toBe('dinsdag 31 maart 2026 om 09:00 (Europe/Amsterdam)');
    expect(describeInstantIn(at, 'Europe/Rome', 'it')).toBe('martedì 31 marzo 2026 alle 09:00 (Europe/Rome)');
    expect(describeInstantIn(at, 'Asia/Tokyo', 'ja')).toBe('2026年3月31日(火) 16:00（Asia/Tokyo）');
  });

  it('keeps the English refusals word for word', () => {
    expect(WHEN_MESSAGES.en.unreadable('blah', 'UTC')).toBe(
      'I could not read "blah" as a time. Try, for example, "in 2 hours", "tomorrow at 9", "next Monday 14:30", ' +
        '"tonight" or "2026-04-01 09:00" (times without a zone are in UTC).',
    );
    expect(WHEN_MESSAGES.en.passed('today at 9', 'Mon 2026-03-30 09:00 UTC', 'Mon 2026-03-30 10:00 UTC', 'UTC')).toBe(
      'I understood "today at 9" as Mon 2026-03-30 09:00 in UTC, which has already passed ' +
        '(it is now Mon 2026-03-30 10:00 UTC). Please give a time in the future, e.g. "in 2 hours" or "tomorrow at 9".',
    );
  });
});
