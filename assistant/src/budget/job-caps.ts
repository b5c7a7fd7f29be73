// The jobs' spending caps as one operator setting, ASSISTANT_BUDGET_JOBS (local.env or compose's .env), made exactly
// what it says at every start: "heartbeat=0.20/day, action=1/day, expert=5/month, judge=50000tok/day". A limit is US
// dollars as in the instance's settings (1, 0.50, $20) or tokens with a `tok` suffix; dollars and tokens for one job
// and period are two entries. Job caps the setting does not name are removed; empty: no job caps.
import { AssistantInputError } from '../errors';
import type { Queryable } from '../storage/db';
import { CAP_PERIODS, type CapPeriod, JOB_NAME, listCaps, removeCap, setCap } from './caps';
import { requireCapTokens, requireCapUsd } from './instance-caps';

export const JOB_CAPS_SETTING = 'ASSISTANT_BUDGET_JOBS';

export interface JobCap {
  /** The caller suffix's job; `expert` covers every `expert:<id>`. */
  job: string;
  period: CapPeriod;
  /** null: no money limit. */
  limitUsd: number | null;
  /** null: no token limit. */
  limitTokens: number | null;
}

const ENTRY = /^([^=\s]+)\s*=\s*(.+?)\s*\/\s*(\S+)$/;
const TOKENS = /^(.+?)\s*tok$/i;

/** What the entries of a caps setting are keyed by: a job, or (ASSISTANT_BUDGET_USERS) a user's identity. */
export interface CapKeyRule {
  setting: string;
  /** e.g. "job", "identity" */
  noun: string;
  pattern: RegExp;
  /** e.g. "heartbeat=0.20/day or judge=50000tok/month" */
  example: string;
  /** e.g. "heartbeat, expert or expert:id" */
  like: string;
}

const JOB_KEYS: CapKeyRule = {
  setting: JOB_CAPS_SETTING,
  noun: 'job',
  pattern: JOB_NAME,
  example: 'heartbeat=0.20/day or judge=50000tok/month',
  like: 'heartbeat, expert or expert:id',
};

const entryError = (rule: CapKeyRule, entry: string, reason: string) =>
  new AssistantInputError(rule.setting, `${JSON.stringify(entry)} ${reason}`);

/** One entry, "key=limit/period", as the key, period and limit it sets. */
function parseEntry(
  rule: CapKeyRule,
  entry: string,
): { job: string; period: CapPeriod; usd?: number; tokens?: number } {
  const fail = (reason: string) => entryError(rule, entry, reason);
  const match = ENTRY.exec(entry);
  if (!match) throw fail(`is not ${rule.noun}=limit/period, e.g. ${rule.example}`);
  const [, job, limit, period] = match;
  if (!rule.pattern.test(job)) throw fail(`names no ${rule.noun}: "${job}" is not like ${rule.like}`);
  if (!(CAP_PERIODS as readonly string[]).includes(period))
    throw fail(`has no period: "${period}" is not day or month`);
  const tokens = TOKENS.exec(limit);
  try {
    const amount = tokens ? requireCapTokens(tokens[1]) : requireCapUsd(limit);
    if (amount === null) throw new Error('off');
    return { job, period: period as CapPeriod, ...(tokens ? { tokens: amount } : { usd: amount }) };
  } catch {
    throw fail(`has no limit: "${limit}" is not US dollars like 1 or 0.50, nor tokens like 50000tok`);
  }
}

/** The job caps the setting gives (empty: none), dollars and tokens of one job and period joined. Bad entries named. */
export function jobCapsFromSettings(settings: Record<string, string | undefined>): JobCap[] {
  return capsFromSetting(JOB_KEYS, settings[JOB_CAPS_SETTING]);
}

/** The caps a "key=limit/period, …" setting gives, keyed as `rule` says (JobCap.job holds the key). */
export function capsFromSetting(rule: CapKeyRule, raw: string | undefined): JobCap[] {
  const caps = new Map<string, JobCap>();
  const entries = (raw ?? '').split(',').map((entry) => entry.trim());
  for (const entry of entries.filter((entry) => entry !== '')) {
    const { job, period, usd, tokens } = parseEntry(rule, entry);
    const key = `${job}/${period}`;
    const cap = caps.get(key) ?? { job, period, limitUsd: null, limitTokens: null };
    if ((usd !== undefined && cap.limitUsd !== null) || (tokens !== undefined && cap.limitTokens !== null))
      throw entryError(
        rule,
        entry,
        `repeats the ${usd !== undefined ? 'dollar' : 'token'} limit of ${job} per ${period}`,
      );
    caps.set(key, { ...cap, limitUsd: usd ?? cap.limitUsd, limitTokens: tokens ?? cap.limitTokens });
  }
  return [...caps.values()];
}

/** Makes the stored job caps exactly these: the others removed, these set (replacing both their limits). */
export async function applyJobCaps(db: Queryable, caps: JobCap[]): Promise<JobCap[]> {
  const named = new Set(caps.map((cap) => `${cap.job}/${cap.period}`));
  for (const stored of await listCaps(db)) {
    if (stored.scope === 'job' && !named.has(`${stored.job}/${stored.period}`))
      await removeCap(db, { scope: 'job', job: stored.job, period: stored.period });
  }
  for (const cap of caps) await setCap(db, { scope: 'job', ...cap });
  return caps;
}

/** The job caps for a start's log: "job caps: heartbeat day $0.2, judge day 50000 tokens" ("none" when none). */
export function describeJobCaps(caps: JobCap[]): string {
  const limits = caps.map((cap) => {
    const parts = [
      cap.limitUsd === null ? null : `$${cap.limitUsd}`,
      cap.limitTokens === null ? null : `${cap.limitTokens} tokens`,
    ].filter((part) => part !== null);
    return `${cap.job} ${cap.period} ${parts.join(' or ')}`;
  });
  return `job caps: ${limits.length === 0 ? 'none' : limits.join(', ')}`;
}
