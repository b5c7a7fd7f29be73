// The instance's spending caps as the operator's settings (setup.sh asks the dollar ones; local.env or compose's
// .env), written to assistant.budget_caps at every start: a daily and a monthly cap in US dollars (empty: the
// default, never unlimited), each optionally in tokens too (for local models, which cost 0). "off" switches a limit
// off; 0 is a real cap of zero.
import { AssistantInputError } from '../errors';
import type { Queryable } from '../storage/db';
import { type CapPeriod, removeCap, setCap } from './caps';

/** What the instance may spend on model calls when the operator set nothing. */
export const DEFAULT_INSTANCE_CAPS_USD: Readonly<Record<CapPeriod, number>> = { day: 1, month: 20 };

/** The settings (env names) of the instance's caps, per period. */
export const INSTANCE_CAP_SETTINGS: Readonly<Record<CapPeriod, { usd: string; tokens: string }>> = {
  day: { usd: 'ASSISTANT_BUDGET_DAY_USD', tokens: 'ASSISTANT_BUDGET_DAY_TOKENS' },
  month: { usd: 'ASSISTANT_BUDGET_MONTH_USD', tokens: 'ASSISTANT_BUDGET_MONTH_TOKENS' },
};

/** The value that switches a limit off. */
export const CAP_OFF = 'off';

const DOLLARS = /^\$?(\d{1,7}(\.\d{0,6})?|\.\d{1,6})$/;
const MAX_USD = 1_000_000;
const MAX_TOKENS = 1e12;

const isOff = (value: string) => value.trim().toLowerCase() === CAP_OFF;

/** A dollar cap as written (1, 0.50, $20), or null for off. */
export function requireCapUsd(value: string, field = 'limitUsd'): number | null {
  if (isOff(value)) return null;
  const text = value.trim().replace(/\s/g, '');
  const amount = DOLLARS.test(text) ? Number(text.replace('$', '')) : NaN;
  if (!Number.isFinite(amount) || amount > MAX_USD) {
    throw new AssistantInputError(
      field,
      `${JSON.stringify(value)} is not an amount in US dollars like 1 or 0.50 (at most ${MAX_USD}), or off`,
    );
  }
  return amount;
}

/** A token cap as written (a whole number, e.g. 2000000), or null for off. */
export function requireCapTokens(value: string, field = 'limitTokens'): number | null {
  if (isOff(value)) return null;
  const text = value.trim().replace(/_/g, '');
  const tokens = /^\d{1,13}$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(tokens) || tokens > MAX_TOKENS) {
    throw new AssistantInputError(
      field,
      `${JSON.stringify(value)} is not a number of tokens like 2000000 (at most ${MAX_TOKENS}), or off`,
    );
  }
  return tokens;
}

export interface InstanceCap {
  period: CapPeriod;
  /** null: no money limit. */
  limitUsd: number | null;
  /** null: no token limit. */
  limitTokens: number | null;
}

/**
 * The instance's caps as the settings give them: dollars empty → the default, tokens empty → none, "off" → none. A
 * bad value is an AssistantInputError naming its setting.
 */
export function instanceCapsFromSettings(settings: Record<string, string | undefined>): InstanceCap[] {
  return (Object.keys(INSTANCE_CAP_SETTINGS) as CapPeriod[]).map((period) => {
    const names = INSTANCE_CAP_SETTINGS[period];
    const usd = settings[names.usd]?.trim();
    const tokens = settings[names.tokens]?.trim();
    return {
      period,
      limitUsd: usd ? requireCapUsd(usd, names.usd) : DEFAULT_INSTANCE_CAPS_USD[period],
      limitTokens: tokens ? requireCapTokens(tokens, names.tokens) : null,
    };
  });
}

/**
 * Writes the instance's caps from the settings (every one checked before any is written): each period's cap set, or
 * removed when both its limits are off. Returns the caps now in force.
 */
export async function applyInstanceCaps(
  db: Queryable,
  settings: Record<string, string | undefined>,
): Promise<InstanceCap[]> {
  const caps = instanceCapsFromSettings(settings);
  for (const cap of caps) {
    if (cap.limitUsd === null && cap.limitTokens === null) {
      await removeCap(db, { scope: 'instance', period: cap.period });
    } else {
      await setCap(db, { scope: 'instance', period: cap.period, limitUsd: cap.limitUsd, limitTokens: cap.limitTokens });
    }
  }
  return caps;
}

/** The caps for a start's log: "spending caps: day $1, month $20 or 5000000 tokens" ("off" when none). */
export function describeInstanceCaps(caps: InstanceCap[]): string {
  const limits = caps.map((cap) => {
    const parts = [
      cap.limitUsd === null ? null : `$${cap.limitUsd}`,
      cap.limitTokens === null ? null : `${cap.limitTokens} tokens`,
    ].filter((part) => part !== null);
    return `${cap.period} ${parts.length === 0 ? CAP_OFF : parts.join(' or ')}`;
  });
  return `spending caps: ${limits.join(', ')}`;
}
