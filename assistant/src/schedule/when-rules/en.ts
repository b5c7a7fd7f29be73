// English: "in 2 hours", "in 1h 30m", "in 3 days", "90 minutes from now", "in half an hour"; "tomorrow at 9".
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const en: WhenLanguage = {
  chrono: chrono.casual,
  relative: relativeReader({
    rewrites: [
      [/\b(?:a )?half an? hour\b|\ba half hour\b/g, '30 minutes'],
      [/\ban? hour and a half\b/g, '90 minutes'],
      [/\ba quarter of an hour\b|\ba quarter hour\b/g, '15 minutes'],
    ],
    numbers: {
      a: 1,
      an: 1,
      one: 1,
      two: 2,
      three: 3,
      four: 4,
      five: 5,
      six: 6,
      seven: 7,
      eight: 8,
      nine: 9,
      ten: 10,
      eleven: 11,
      twelve: 12,
      fifteen: 15,
      twenty: 20,
      thirty: 30,
      forty: 40,
      fifty: 50,
    },
    digits: String.raw`\d+(?:\.\d+)?`,
    units: { s: 'seconds?|secs?|s', m: 'minutes?|mins?|m', h: 'hours?|hrs?|h', d: 'days?|d', w: 'weeks?|wks?|w' },
    joiner: '(?:,|and)?',
    phrases: ['^in {parts}(?: from now)?$', '^{parts} (?:from now|later)$'],
  }),
  dayPartHour: (text) => (/\b(tonight|evening|night)\b/.test(text) ? 20 : /\bafternoon\b/.test(text) ? 15 : undefined),
};
