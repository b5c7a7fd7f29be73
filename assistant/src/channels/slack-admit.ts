// Who may talk on Slack, decided before anything of the message is stored. The owner's Slack user id (the Slack app
// credential's Owner Slack User ID) is the owner: their Slack identity joined to the owner's user (the one behind the
// owner's Telegram chat, else the console's operator), so memories and reminders are the same on every channel.
// Everyone else goes through the people gate (admit: Slack's DM policy, owner only unless the owner chose pairing or
// an allow list; a pairing code in the text pairs them); a refusal or a pairing reply is one sentence back, and
// nothing else of theirs is stored.
import type { Pool } from 'pg';

import { findIdentityUser, linkIdentity, resolveIdentity } from '../identities/identities';
import { OPERATOR_API_USER_ID } from '../pending/approvals';
import { admit, type Admission } from '../people/admit';
import { ownerUserId } from '../people/people';
import { SLACK_USER_ID } from './slack';

export { REFUSAL_TEXT as SLACK_REFUSAL } from '../people/admit';

export interface SlackAdmitInput {
  /** The owner's Slack user id from the credential (U… or W…); empty: the owner is not on Slack. */
  ownerSlackUserId: string | null | undefined;
  externalId: string;
  /** The message's text (a pairing code is looked for in it). */
  text: string;
  now: Date;
}

/** The owner's assistant user: their Telegram chat's, else the console operator's (made on first use). */
async function ownerUser(pool: Pool): Promise<string> {
  return (await ownerUserId(pool)) ?? (await resolveIdentity(pool, 'api', OPERATOR_API_USER_ID)).userId;
}

export async function admitSlackSender(pool: Pool, input: SlackAdmitInput): Promise<Admission> {
  const owner = typeof input.ownerSlackUserId === 'string' ? input.ownerSlackUserId.trim() : '';
  if (SLACK_USER_ID.test(owner) && owner === input.externalId) {
    const linked = await findIdentityUser(pool, 'slack', owner);
    if (linked !== null) return { kind: 'owner', userId: linked };
    const { userId } = await linkIdentity(pool, await ownerUser(pool), 'slack', owner);
    return { kind: 'owner', userId };
  }
  return await admit(pool, { channel: 'slack', externalId: input.externalId, text: input.text, now: input.now });
}
