// Japanese: no grammar of its own yet (the issue asks for de, fr, es, pt, nl and it), so English phrases and cron
// are read; answers and descriptions are in Japanese, and the examples are the English phrases that do parse.
import type { RecurrenceLanguage } from './types';
import { daysLabel } from './wording';

const DAY_NAMES = ['日曜日', '月曜日', '火曜日', '水曜日', '木曜日', '金曜日', '土曜日'];
const EXAMPLES = ['every 15 minutes', 'every weekday at 7:30', 'every Monday at 9', 'daily at 18:00', '30 7 * * 1-5'];
const QUOTED = EXAMPLES.map((example) => `「${example}」`);

export const ja: RecurrenceLanguage = {
  grammar: null,
  phrases: {
    examples: EXAMPLES,
    refuse: (why) =>
      `${why}繰り返しの指定は日本語ではまだ読めません。英語の表現か cron 行で指定してください。例: ` +
      `${QUOTED.slice(0, -1).join('、')}または cron 行${QUOTED[QUOTED.length - 1]}。`,
    problems: {
      empty: () => 'スケジュールが空です。',
      cronFields: (input, count) =>
        `「${input}」は cron 行ではありません。5 つのフィールド（分 時 日 月 曜日）が必要ですが、${count} つです。`,
      cronNever: (input) => `cron 行「${input}」は一度も実行されません。`,
      cronInvalid: (input, reason) => `「${input}」は有効な cron 行ではありません（${reason}）。`,
      tooOften: () => 'スケジュールの実行は 1 分に 1 回までです。',
      wholeDays: (input) => `「${input}」: 日数は整数で指定するか、時間単位で指定してください。`,
      wholeMinutes: (input) => `「${input}」: 間隔は 1 以上の整数の分で指定してください。`,
      needsDayAndTime: (input) =>
        `「${input}」: 曜日と時刻を指定してください（例:「every Monday at 9」または cron 行）。`,
      needsTime: (input) => `「${input}」には時刻が必要です（例:「every weekday at 7:30」）。`,
      unreadable: (input) => `「${input}」をスケジュールとして読み取れませんでした。`,
      days: (input) => `「${input}」の曜日を読み取れませんでした。`,
      time: (input) => `「${input}」の時刻を読み取れませんでした（例: 7:30、18:00、9am）。`,
    },
    cron: (cron, timeZone) => `cron「${cron}」（${timeZone}）`,
    everyMinutes: (n) => (n === 1 ? '毎分' : `${n} 分ごと`),
    everyDays: (n, timeZone) => `${n === 1 ? '毎日' : `${n} 日ごと`}、前回の実行と同じ時刻（${timeZone}）`,
    calendar: (days, hhmm, timeZone) =>
      `${daysLabel(days, {
        every: '毎日',
        weekdays: '平日（月〜金）',
        weekend: '週末（土・日）',
        list: (list) => `毎週${list.map((d) => DAY_NAMES[d]).join('・')}`,
      })} ${hhmm}（${timeZone}）`,
  },
};
