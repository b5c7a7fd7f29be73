// What the model calls cost (the agent's spending tool): the ledger (assistant.model_calls) summed over today, this
// week or this month in the user's time zone, by job and by model, with the caps that cover the user and how much of
// their current window is spent. The owner (the user holding the instance owner's Telegram chat) sees the whole
// instance; any other user sees their own calls.
import { DateTime } from 'luxon';

import { AssistantInputError } from '../errors';
import { describeInstant, requireDate } from '../schedule/zone';
import { getInstanceSettings, getUserSettings } from '../settings/settings';
import type { Queryable } from '../storage/db';
import { requireUserId } from '../validate';
import { listCaps, type SpendingCap } from './caps';

export const SPENDING_PERIODS = ['today', 'week', 'month'] as const;
export type SpendingPeriod = (typeof SPENDING_PERIODS)[number];

export interface SpendingTokens {
  prompt: number;
  output: number;
  cached: number;
}

export interface SpendingGroup {
  usd: number;
  calls: number;
  tokens: SpendingTokens;
}

export interface CapStanding extends SpendingCap {
  spentUsd: number;
  spentTokens: number;
  /** When the current window ends (ISO 8601). */
  resetsAt: string;
}

export interface SpendingReport {
  period: SpendingPeriod;
  /** instance: the owner's view of every call; user: the user's own calls. */
  covers: 'instance' | 'user';
  timeZone: string;
  from: string;
  to: string;
  totalUsd: number;
  tokens: SpendingTokens;
  /** Calls made (those refused over budget are counted apart). */
  calls: number;
  byJob: Array<SpendingGroup & { job: string }>;
  byModel: Array<SpendingGroup & { provider: string; model: string }>;
  refusedOverBudget: number;
  caps: CapStanding[];
  /** A short summary in plain words, for the model to relay. */
  text: string;
}

interface LedgerRow {
  job: string;
  provider: string;
  model: string;
  calls: string;
  refused: string;
  micros: string;
  prompt: string;
  output: string;
  cached: string;
}

const MICROS = 1_000_000;
const PERIOD_START: Record<SpendingPeriod, 'day' | 'week' | 'month'> = { today: 'day', week: 'week', month: 'month' };
const PERIOD_WORDS: Record<SpendingPeriod, string> = { today: 'Today', week: 'This week', month: 'This month' };

export async function spendingReport(
  db: Queryable,
  userIdInput: unknown,
  options: { period: unknown; now?: Date },
): Promise<SpendingReport> {
  const userId = requireUserId(userIdInput);
  const period = requirePeriod(options.period);
  const now = options.now === undefined ? new Date() : requireDate(options.now);
  const { timeZone } = await getUserSettings(db, userId);
  const from = DateTime.fromJSDate(now, { zone: timeZone }).startOf(PERIOD_START[period]).toJSDate();
  const owner = await isOwner(db, userId);
  const rows = await db.query<LedgerRow>(
    `SELECT job, provider, model,
            count(*) FILTER (WHERE outcome <> 'over_budget') AS calls,
            count(*) FILTER (WHERE outcome = 'over_budget') AS refused,
            coalesce(sum(cost_micros) FILTER (WHERE outcome <> 'over_budget'), 0) AS micros,
            coalesce(sum(prompt_tokens) FILTER (WHERE outcome <> 'over_budget'), 0) AS prompt,
            coalesce(sum(output_tokens) FILTER (WHERE outcome <> 'over_budget'), 0) AS output,
            coalesce(sum(cached_tokens) FILTER (WHERE outcome <> 'over_budget'), 0) AS cached
       FROM assistant.model_calls
      WHERE at >= $1 AND at < $2 AND ($3::uuid IS NULL OR user_id = $3::uuid)
      GROUP BY job, provider, model`,
    [from, now, owner ? null : userId],
  );
  const groups = rows.rows.map((row) => ({ row, group: toGroup(row) }));
  const report: Omit<SpendingReport, 'text'> = {
    period,
    covers: owner ? 'instance' : 'user',
    timeZone,
    from: from.toISOString(),
    to: now.toISOString(),
    ...sumGroups(groups.map(({ group }) => group)),
    byJob: groupBy(groups, ({ row }) => row.job).map(([job, group]) => ({ job, ...group })),
    byModel: groupBy(groups, ({ row }) => `${row.provider}\u0000${row.model}`).map(([key, group]) => {
      const [provider, model] = key.split('\u0000');
      return { provider, model, ...group };
    }),
    refusedOverBudget: rows.rows.reduce((sum, row) => sum + Number(row.refused), 0),
    caps: await capStandings(db, userId, owner, now),
  };
  return { ...report, text: describeSpending(report, userId) };
}

function requirePeriod(value: unknown): SpendingPeriod {
  const period = typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (typeof period === 'string' && (SPENDING_PERIODS as readonly string[]).includes(period))
    return period as SpendingPeriod;
  throw new AssistantInputError('period', `must be one of ${SPENDING_PERIODS.join(', ')}`);
}

/** The owner: the user holding the identity of the instance owner's Telegram chat. */
async function isOwner(db: Queryable, userId: string): Promise<boolean> {
  const { ownerTelegramChatId } = await getInstanceSettings(db);
  if (!ownerTelegramChatId) return false;
  const found = await db.query('SELECT 1 FROM assistant.identities WHERE user_id = $1 AND identity = $2', [
    userId,
    `telegram:${ownerTelegramChatId}`,
  ]);
  return (found.rowCount ?? 0) > 0;
}

function toGroup(row: LedgerRow): SpendingGroup {
  return {
    usd: Number(row.micros) / MICROS,
    calls: Number(row.calls),
    tokens: { prompt: Number(row.prompt), output: Number(row.output), cached: Number(row.cached) },
  };
}

function sumGroups(groups: SpendingGroup[]): { totalUsd: number; calls: number; tokens: SpendingTokens } {
  const sum = groups.reduce(
    (total, group) => ({
      usd: total.usd + group.usd,
      calls: total.calls + group.calls,
      tokens: {
        prompt: total.tokens.prompt + group.tokens.prompt,
        output: total.tokens.output + group.tokens.output,
        cached: total.tokens.cached + group.tokens.cached,
      },
    }),
    { usd: 0, calls: 0, tokens: { prompt: 0, output: 0, cached: 0 } },
  );
  return { totalUsd: roundMicros(sum.usd), calls: sum.calls, tokens: sum.tokens };
}

/** The groups summed per key, the costliest first (then the most calls), leaving out keys with no calls. */
function groupBy<T extends { group: SpendingGroup }>(
  items: T[],
  key: (item: T) => string,
): Array<[string, SpendingGroup]> {
  const byKey = new Map<string, SpendingGroup[]>();
  for (const item of items) byKey.set(key(item), [...(byKey.get(key(item)) ?? []), item.group]);
  return [...byKey]
    .map(([name, groups]): [string, SpendingGroup] => {
      const { totalUsd, calls, tokens } = sumGroups(groups);
      return [name, { usd: totalUsd, calls, tokens }];
    })
    .filter(([, group]) => group.calls > 0)
    .sort(([a, x], [b, y]) => y.usd - x.usd || y.calls - x.calls || a.localeCompare(b));
}

const roundMicros = (usd: number): number => Math.round(usd * MICROS) / MICROS;

/** The caps that cover the user (the owner: every cap), with their current window's spending and its end. */
async function capStandings(db: Queryable, userId: string, owner: boolean, now: Date): Promise<CapStanding[]> {
  const caps = (await listCaps(db)).filter((cap) => owner || cap.scope !== 'user' || cap.userId === userId);
  if (caps.length === 0) return [];
  const windows = await db.query<{ cap_id: string; ends_at: Date; spent_micros: string; spent_tokens: string }>(
    `SELECT cap_id, ends_at, spent_micros, spent_tokens FROM assistant.budget_windows
      WHERE cap_id = ANY($1::bigint[]) AND starts_at <= $2 AND ends_at > $2`,
    [caps.map((cap) => cap.id), now],
  );
  const instanceZone = (await getInstanceSettings(db)).timeZone;
  return await Promise.all(
    caps.map(async (cap) => {
      const window = windows.rows.find((row) => Number(row.cap_id) === cap.id);
      const zone = cap.userId ? (await getUserSettings(db, cap.userId)).timeZone : instanceZone;
      const resetsAt =
        window?.ends_at ??
        DateTime.fromJSDate(now, { zone })
          .startOf(cap.period)
          .plus({ [cap.period]: 1 })
          .toJSDate();
      return {
        ...cap,
        spentUsd: window ? Number(window.spent_micros) / MICROS : 0,
        spentTokens: window ? Number(window.spent_tokens) : 0,
        resetsAt: resetsAt.toISOString(),
      };
    }),
  );
}

const usd = (amount: number): string => `$${amount > 0 && amount < 0.01 ? amount.toFixed(4) : amount.toFixed(2)}`;
const count = (n: number): string => n.toLocaleString('en-US');
const plural = (n: number, word: string): string => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

function describeSpending(report: Omit<SpendingReport, 'text'>, userId: string): string {
  const since = describeInstant(new Date(report.from), report.timeZone);
  const whose = report.covers === 'instance' ? 'the whole instance' : 'your calls';
  const lines = [
    `${PERIOD_WORDS[report.period]} (since ${since}), ${whose}: ${usd(report.totalUsd)} on ${plural(report.calls, 'model call')}.`,
  ];
  if (report.calls > 0) {
    const { prompt, cached, output } = report.tokens;
    lines.push(`Tokens: ${count(prompt)} prompt (${count(cached)} of them cached), ${count(output)} output.`);
    lines.push(`By job: ${report.byJob.map((g) => `${g.job} ${usd(g.usd)} (${plural(g.calls, 'call')})`).join(', ')}.`);
    lines.push(
      `By model: ${report.byModel.map((g) => `${g.model} on ${g.provider} ${usd(g.usd)} (${plural(g.calls, 'call')})`).join(', ')}.`,
    );
  }
  if (report.refusedOverBudget > 0)
    lines.push(`${plural(report.refusedOverBudget, 'call')} refused because a spending cap was reached.`);
  for (const cap of report.caps) lines.push(describeCap(cap, userId, report.timeZone));
  if (report.caps.length === 0) lines.push('No spending cap is set.');
  return lines.join('\n');
}

function describeCap(cap: CapStanding, userId: string, zone: string): string {
  const per = cap.period === 'day' ? 'daily' : 'monthly';
  const name =
    cap.scope === 'instance'
      ? `The instance's ${per} cap`
      : cap.scope === 'job'
        ? `The ${per} cap on ${cap.job}`
        : cap.userId === userId
          ? `Your ${per} cap`
          : `The ${per} cap of user ${cap.userId}`;
  const spent = [
    cap.limitUsd === null ? null : `${usd(cap.spentUsd)} of ${usd(cap.limitUsd)}`,
    cap.limitTokens === null ? null : `${count(cap.spentTokens)} of ${count(cap.limitTokens)} tokens`,
  ].filter((part) => part !== null);
  return `${name}: ${spent.join(' and ')} spent; it resets ${describeInstant(new Date(cap.resetsAt), zone)}.`;
}
