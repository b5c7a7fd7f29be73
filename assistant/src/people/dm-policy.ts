// Who may talk on each channel (the DM policy), stored in the instance settings (dm_policies): `owner` only the owner;
// `pairing` the owner and the people paired by a one-time code (strangers are told to send one); `allowlist` the owner
// and the listed external ids; `open` everyone, only for the API entry (its callers hold the operator's API key).
import type { Queryable } from '../storage/db';
import { AssistantInputError } from '../errors';
import { envValue } from '../env-settings';
import { CHANNELS, identityKey, type Channel } from '../identities/identities';

export const DM_POLICIES = ['owner', 'pairing', 'allowlist', 'open'] as const;
export type DmPolicyName = (typeof DM_POLICIES)[number];

export interface DmPolicy {
  policy: DmPolicyName;
  /** The external ids an `allowlist` lets in (as the channel names them: a chat id, an address). */
  allow: string[];
}

/** The channels whose entry is authenticated by the operator's own key: the only ones `open` may be set on. */
export const KEY_AUTHENTICATED_CHANNELS: readonly string[] = ['api'];

/** Today's behaviour where the operator set nothing: the API entry open, every chat channel the owner's only. */
export function defaultDmPolicy(channel: string): DmPolicy {
  return { policy: KEY_AUTHENTICATED_CHANNELS.includes(channel) ? 'open' : 'owner', allow: [] };
}

export const MAX_ALLOWED_IDS = 200;

export function requireChannel(value: unknown, field = 'channel'): Channel {
  if (typeof value !== 'string' || !(CHANNELS as readonly string[]).includes(value.trim())) {
    throw new AssistantInputError(field, `must be one of ${CHANNELS.join(', ')}`);
  }
  return value.trim() as Channel;
}

/** A policy for one channel, validated: the allow list's ids as the identity table keys them. */
export function requireDmPolicy(channelInput: unknown, policyInput: unknown, allowInput?: unknown): DmPolicy {
  const channel = requireChannel(channelInput);
  const policy = typeof policyInput === 'string' ? policyInput.trim().toLowerCase() : policyInput;
  if (typeof policy !== 'string' || !(DM_POLICIES as readonly string[]).includes(policy)) {
    throw new AssistantInputError('policy', `must be one of ${DM_POLICIES.join(', ')}`);
  }
  if (policy === 'open' && !KEY_AUTHENTICATED_CHANNELS.includes(channel)) {
    throw new AssistantInputError('policy', `"open" is only for ${KEY_AUTHENTICATED_CHANNELS.join(', ')}`);
  }
  const raw = allowInput === undefined || allowInput === null || allowInput === '' ? [] : allowInput;
  const list = typeof raw === 'string' ? raw.split(/[\s,]+/).filter(Boolean) : raw;
  if (!Array.isArray(list)) throw new AssistantInputError('allow', 'must be a list of external ids');
  if (list.length > MAX_ALLOWED_IDS) throw new AssistantInputError('allow', `must have at most ${MAX_ALLOWED_IDS} ids`);
  const allow = [...new Set(list.map((id, i) => externalIdOf(identityKey(channel, id), `allow[${i}]`)))];
  if (policy === 'allowlist' && allow.length === 0) {
    throw new AssistantInputError('allow', 'an allowlist needs at least one external id');
  }
  return { policy: policy as DmPolicyName, allow: policy === 'allowlist' ? allow : [] };
}

function externalIdOf(key: string, field: string): string {
  const id = key.slice(key.indexOf(':') + 1);
  if (id === '') throw new AssistantInputError(field, 'must be a non-empty id');
  return id;
}

/** Every channel's policy in effect (the stored one, else the default). */
export async function getDmPolicies(db: Queryable): Promise<Record<Channel, DmPolicy>> {
  const row = await db.query<{ dm_policies: Record<string, DmPolicy> }>(
    'SELECT dm_policies FROM assistant.instance_settings',
  );
  const stored = row.rows[0]?.dm_policies ?? {};
  const all = {} as Record<Channel, DmPolicy>;
  for (const channel of CHANNELS) {
    const own = stored[channel];
    all[channel] = own && (DM_POLICIES as readonly string[]).includes(own.policy) ? own : defaultDmPolicy(channel);
  }
  return all;
}

export async function getDmPolicy(db: Queryable, channel: unknown): Promise<DmPolicy> {
  return (await getDmPolicies(db))[requireChannel(channel)];
}

/** Sets one channel's policy; the others are left as they are. */
export async function setDmPolicy(
  db: Queryable,
  input: { channel: unknown; policy: unknown; allow?: unknown },
): Promise<{ channel: Channel } & DmPolicy> {
  const channel = requireChannel(input.channel);
  const policy = requireDmPolicy(channel, input.policy, input.allow);
  await db.query(
    `UPDATE assistant.instance_settings SET dm_policies = jsonb_set(dm_policies, ARRAY[$1::text], $2::jsonb, true)`,
    [channel, JSON.stringify(policy)],
  );
  return { channel, ...policy };
}

/**
 * The policies the environment sets (setup.sh): ASSISTANT_DM_POLICY_<CHANNEL> (owner, pairing, allowlist, open) and
 * ASSISTANT_DM_ALLOW_<CHANNEL> (ids, comma-separated). Bad values are errors naming the variable.
 */
export function dmPoliciesFromEnv(env: NodeJS.ProcessEnv): Array<{ channel: Channel } & DmPolicy> {
  const found: Array<{ channel: Channel } & DmPolicy> = [];
  for (const channel of CHANNELS) {
    const name = `ASSISTANT_DM_POLICY_${channel.toUpperCase()}`;
    const policy = envValue(env, name);
    if (policy === undefined) continue;
    const allowName = `ASSISTANT_DM_ALLOW_${channel.toUpperCase()}`;
    try {
      found.push({ channel, ...requireDmPolicy(channel, policy, envValue(env, allowName)) });
    } catch (error) {
      if (!(error instanceof AssistantInputError)) throw error;
      const variable = error.field === 'policy' ? name : allowName;
      throw new AssistantInputError(variable, error.reason);
    }
  }
  return found;
}
