// Users' spending caps as one operator setting, ASSISTANT_BUDGET_USERS, made exactly what it says at every start:
// "telegram:4242001=2/day, api:alice=0.50/day, api:alice=20/month, api:bot=100000tok/day". A user is named by an
// identity (telegram:<chat id> or api:<user_id>, as the webhook's user_id); a user not seen yet is created, so the cap
// is there before their first message. Limits and periods as in ASSISTANT_BUDGET_JOBS (./job-caps.ts); user caps the
// setting does not name are removed; empty: no user caps.
import type { Pool } from 'pg';
import { resolveIdentity } from '../identities/identities';
import { listCaps, removeCap, setCap } from './caps';
import { capsFromSetting, type CapKeyRule, type JobCap } from './job-caps';

export const USER_CAPS_SETTING = 'ASSISTANT_BUDGET_USERS';

const USER_KEYS: CapKeyRule = {
  setting: USER_CAPS_SETTING,
  noun: 'identity',
  pattern: /^(telegram:-?\d{1,20}|api:[A-Za-z0-9_.@:-]{1,200})$/,
  example: 'telegram:4242001=2/day or api:alice=0.50/day',
  like: 'telegram:<chat id> or api:<user_id>',
};

export interface UserCap extends Omit<JobCap, 'job'> {
  identity: string;
}

/** The user caps the setting gives (empty: none), checked before anything is written. Bad entries named. */
export function userCapsFromSettings(settings: Record<string, string | undefined>): UserCap[] {
  return capsFromSetting(USER_KEYS, settings[USER_CAPS_SETTING]).map(({ job, ...cap }) => ({ identity: job, ...cap }));
}

/** Makes the stored user caps exactly these: the others removed, these set for their users (created if new). */
export async function applyUserCaps(pool: Pool, caps: UserCap[]): Promise<UserCap[]> {
  const wanted = new Set<string>();
  const resolved: Array<UserCap & { userId: string }> = [];
  for (const cap of caps) {
    const at = cap.identity.indexOf(':');
    const { userId } = await resolveIdentity(pool, cap.identity.slice(0, at), cap.identity.slice(at + 1));
    wanted.add(`${userId}/${cap.period}`);
    resolved.push({ ...cap, userId });
  }
  for (const stored of await listCaps(pool))
    if (stored.scope === 'user' && !wanted.has(`${stored.userId}/${stored.period}`))
      await removeCap(pool, { scope: 'user', userId: stored.userId, period: stored.period });
  for (const { userId, period, limitUsd, limitTokens } of resolved)
    await setCap(pool, { scope: 'user', userId, period, limitUsd, limitTokens });
  return caps;
}

/** For a start's log: "user caps: api:alice day $0.5, …" ("none" when none). */
export function describeUserCaps(caps: UserCap[]): string {
  const limits = caps.map((cap) => {
    const parts = [
      cap.limitUsd === null ? null : `$${cap.limitUsd}`,
      cap.limitTokens === null ? null : `${cap.limitTokens} tokens`,
    ];
    return `${cap.identity} ${cap.period} ${parts.filter((part) => part !== null).join(' or ')}`;
  });
  return `user caps: ${limits.length === 0 ? 'none' : limits.join(', ')}`;
}
