// The gate every channel calls on an inbound message before anything else (before it is stored, before any model or
// tool): who is talking, decided by code from the channel's DM policy, the owner's chat, the people and the pairing
// codes. A stranger's message is answered here and goes no further; nothing of theirs is stored but a wrong code's
// attempt (its sender and time).
import type { Pool } from 'pg';
import { identityKey, resolveIdentity, type Channel } from '../identities/identities';
import { getInstanceSettings } from '../settings/settings';
import { getDmPolicy, requireChannel } from './dm-policy';
import { normalisePairingCode, redeemPairingCode } from './pairing';
import { isOperator } from '../pending/approvals';

export type Admission =
  /** The owner: today's behaviour, their own user. */
  | { kind: 'owner'; userId: string }
  /** A person the owner let in (or any caller of an open, key-authenticated channel): their own user. */
  | { kind: 'person'; userId: string }
  /** A stranger on a pairing channel: send `reply` back and nothing else (a code they sent may just have paired them). */
  | { kind: 'pairing-reply'; reply: string; pairedUserId?: string }
  /** Not let in: send `reply` back (or nothing) and nothing else. */
  | { kind: 'refused'; reply: string };

export interface AdmitInput {
  /** The identity channel (assistant.identities): telegram, api, email, … as ChannelAdapter.identityOf names it. */
  channel: Channel | string;
  externalId: string;
  /** The message's text (a code is looked for in it; empty for a voice note or a file). */
  text: string;
  now: Date;
}

export const REFUSAL_TEXT = 'Sorry, this is a private assistant.';
export const PAIRING_PROMPT =
  'This assistant is private. If its owner gave you a pairing code, send the code here as your message.';
export const WRONG_CODE_TEXT = 'That code is not valid (wrong, expired or already used). Ask the owner for a new one.';
export const LIMITED_TEXT = 'Too many wrong codes. Try again in an hour.';
export const PAIRED_NEW_TEXT = (name: string | null) =>
  `You are paired${name ? `, ${name}` : ''}. From now on you can talk to the assistant here; what you tell it is yours alone.`;
export const PAIRED_AGAIN_TEXT = 'This channel is now paired to you. You can talk to the assistant here too.';

async function userOf(pool: Pool, identity: string): Promise<string | null> {
  const found = await pool.query<{ user_id: string }>('SELECT user_id FROM assistant.identities WHERE identity = $1', [
    identity,
  ]);
  return found.rows[0]?.user_id ?? null;
}

async function isActivePerson(pool: Pool, userId: string): Promise<boolean> {
  const found = await pool.query('SELECT 1 FROM assistant.people WHERE user_id = $1 AND removed_at IS NULL', [userId]);
  return found.rowCount !== 0;
}

/** A listed id's user, made a person on first contact (so the owner lists and removes them like a paired one). */
async function allowedPerson(pool: Pool, identity: string, name: string, now: Date): Promise<string> {
  const channel = identity.slice(0, identity.indexOf(':'));
  const { userId } = await resolveIdentity(pool, channel, identity.slice(channel.length + 1));
  await pool.query(
    `INSERT INTO assistant.people (user_id, name, added_at, added_by) VALUES ($1, $2, $3, 'allowlist')
     ON CONFLICT (user_id) DO UPDATE SET removed_at = NULL`,
    [userId, name.slice(0, 100), now],
  );
  return userId;
}

/** Decides who an inbound message is from; throws AssistantInputError naming the field for a bad channel or id. */
export async function admit(pool: Pool, input: AdmitInput): Promise<Admission> {
  const channel = requireChannel(input.channel);
  const identity = identityKey(channel, input.externalId);
  const externalId = identity.slice(channel.length + 1);
  const ownerChat = (await getInstanceSettings(pool)).ownerTelegramChatId;
  if (channel === 'telegram' && ownerChat !== null && externalId === ownerChat) {
    return { kind: 'owner', userId: (await resolveIdentity(pool, channel, externalId)).userId };
  }
  const userId = await userOf(pool, identity);
  if (userId !== null && (await isOperator(pool, userId))) return { kind: 'owner', userId };
  const { policy, allow } = await getDmPolicy(pool, channel);
  const person = userId !== null && (await isActivePerson(pool, userId));
  // An open channel's caller: their user, created on first contact (today's behaviour of the API entry).
  if (policy === 'open')
    return { kind: 'person', userId: userId ?? (await resolveIdentity(pool, channel, externalId)).userId };
  if (policy === 'pairing' && person) return { kind: 'person', userId: userId! };
  if (policy === 'allowlist' && allow.includes(externalId)) {
    return { kind: 'person', userId: await allowedPerson(pool, identity, `${channel} ${externalId}`, input.now) };
  }
  // A stranger (or a person on a channel that does not let them in). Only a code is looked at; a code the owner
  // issued for themselves pairs the owner's other channels under any policy.
  const code = normalisePairingCode(input.text);
  if (code !== null && !person) {
    const ownerCodesOnly = policy !== 'pairing';
    const result = await redeemPairingCode(pool, { identity, normalised: code, ownerCodesOnly, now: input.now });
    if (result.kind === 'paired') {
      const reply = result.newPerson ? PAIRED_NEW_TEXT(result.name) : PAIRED_AGAIN_TEXT;
      return { kind: 'pairing-reply', reply, pairedUserId: result.userId };
    }
    if (policy === 'pairing')
      return { kind: 'pairing-reply', reply: result.kind === 'wrong' ? WRONG_CODE_TEXT : LIMITED_TEXT };
  }
  if (policy === 'pairing' && !person) return { kind: 'pairing-reply', reply: PAIRING_PROMPT };
  return { kind: 'refused', reply: REFUSAL_TEXT };
}
