// Check Email: an email as n8n's Email Trigger (IMAP, format "resolved") gives it, checked and let in by the people
// gate (the email channel's DM policy) before anything is stored. `action` says what follows: turn (with userId and
// the message: sender, session, text, reply-to), reply (a pairing answer to send in the thread, nothing else), or
// drop (a stranger, an automatic email, the assistant's own, or an email without a sender or Message-ID: nothing is
// answered, the reason is kept).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import { admitEmail, parseEmail } from 'assistant-core';

import { asData, nowParameter, nowProperty, parameter } from '../../../shared/helpers/parameters';
import { emailConfig } from '../../transport/credential';
import { assistantAddressProperty } from './common.descriptions';

const properties: INodeProperties[] = [
  {
    displayName: 'Email',
    name: 'email',
    type: 'json',
    required: true,
    default: '={{ $json }}',
    description: 'The Email Trigger\'s item (format "Resolved")',
  },
  assistantAddressProperty,
  nowProperty,
];

const displayOptions = { show: { operation: ['checkEmail'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const config = await emailConfig(this, itemIndex);
  const raw = parameter(this, 'email', itemIndex);
  const parsed = parseEmail(typeof raw === 'string' ? JSON.parse(raw) : raw, config);
  if (parsed.kind === 'ignored') return { action: 'drop', reason: parsed.reason };
  if (parsed.kind === 'refused') return { action: 'drop', reason: parsed.refusal.message };
  const admitted = await admitEmail(pool, parsed.message, nowParameter(this, itemIndex));
  if (admitted.kind === 'drop') return { action: 'drop', reason: admitted.reason };
  const message = asData(parsed.message);
  if (admitted.kind === 'reply') return { action: 'reply', text: admitted.text, message };
  return { action: 'turn', userId: admitted.userId, message };
}
