// Who may talk on Slack, decided before anything of the message is stored: the owner's Slack user id (the Slack app
// credential's Owner Slack User ID) is the owner — their Slack identity joined to the owner's user (the one behind
// the owner's Telegram chat, else the console's operator), so memories and reminders are the same on every channel.
// Anyone else is refused with one sentence; nothing of theirs is stored.
import type { Pool } from 'pg';

import { findIdentityUser, linkIdentity, resolveIdentity } from '../identities/identities';
import { OPERATOR_API_USER_ID } from '../pending/approvals';
import { getInstanceSettings } from '../settings/settings';
import { SLACK_USER_ID } from './slack';

export const SLACK_REFUSAL = 'Sorry, this is a private assistant.';

export type SlackAdmission = { kind: 'owner'; userId: string } | { kind: 'refused'; reply: string };

export interface SlackAdmitInput {
  /** The owner's Slack user id from the credential (U… or W…); empty: nobody is the owner yet. */
  ownerSlackUserId: string | null | undefined;
  externalId: string;
}

/** The owner's assistant user: their Telegram chat's, else the console operator's (made on first use). */
async function ownerUser(pool: Pool): Promise<string> {
  const chat = (await getInstanceSettings(pool)).ownerTelegramChatId;
  const viaTelegram = chat === null ? null : await findIdentityUser(pool, 'telegram', chat);
  return viaTelegram ?? (await resolveIdentity(pool, 'api', OPERATOR_API_USER_ID)).userId;
}

export async function admitSlackSender(pool: Pool, input: SlackAdmitInput): Promise<SlackAdmission> {
  const owner = typeof input.ownerSlackUserId === 'string' ? input.ownerSlackUserId.trim() : '';
  if (!SLACK_USER_ID.test(owner) || owner !== input.externalId) return { kind: 'refused', reply: SLACK_REFUSAL };
  const linked = await findIdentityUser(pool, 'slack', owner);
  if (linked !== null) return { kind: 'owner', userId: linked };
  const { userId } = await linkIdentity(pool, await ownerUser(pool), 'slack', owner);
  return { kind: 'owner', userId };
}
