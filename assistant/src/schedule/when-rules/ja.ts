// Japanese: "2時間後", "1時間半後に", "30分後", "3日後", "あと2時間で", "三日後"; "明日9時", "今夜", "月曜日14時30分".
// Full-width digits arrive as ASCII (the input is NFKC-normalised before it gets here).
import * as chrono from 'chrono-node';
import type { WhenLanguage } from './language';
import { relativeReader } from './relative';

export const ja: WhenLanguage = {
  chrono: chrono.ja.casual,
  relative: relativeReader({
    rewrites: [
      [/半時間/g, '30分'],
      [/時間半/g, '時間30分'],
    ],
    numbers: {
      二十: 20,
      三十: 30,
      四十: 40,
      五十: 50,
      十五: 15,
      十二: 12,
      十一: 11,
      十: 10,
      一: 1,
      二: 2,
      三: 3,
      四: 4,
      五: 5,
      六: 6,
      七: 7,
      八: 8,
      九: 9,
    },
    digits: String.raw`\d+(?:[.,]\d+)?`,
    units: { s: '秒間?', m: '分間?', h: '時間', d: '日間?', w: '週間' },
    joiner: '(?:,|、)?',
    phrases: [String.raw`^{parts}\s*後(?:に|で)?$`, String.raw`^あと\s*{parts}\s*(?:後|で)?(?:に)?$`],
  }),
  dayAfterTomorrow: { phrase: /明後日/, tomorrow: '明日' },
  dayPartHour: (text) => (/夜|晩|夕方/.test(text) ? 20 : /午後|昼過ぎ/.test(text) ? 15 : undefined),
};
