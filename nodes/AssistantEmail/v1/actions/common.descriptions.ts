// Parameters the email operations share.
import type { INodeProperties } from 'n8n-workflow';

export const assistantAddressProperty: INodeProperties = {
  displayName: 'Assistant Address',
  name: 'assistantAddress',
  type: 'string',
  default: '',
  placeholder: 'assistant@example.org',
  description:
    "The assistant's own address (the mailbox the Email Trigger reads). Empty: ASSISTANT_EMAIL_ADDRESS from n8n's " +
    'environment, else the SMTP login when it is an address.',
};

/** The checked email (Check Email's `message`): its sender, session and thread. */
export const messageProperty: INodeProperties = {
  displayName: 'Email',
  name: 'message',
  type: 'json',
  required: true,
  default: "={{ $('Check Email').first().json.message }}",
  description: 'The email answered, as Check Email gives it (its sender and thread: Message-ID, subject, References)',
};

export function messageParameter(value: unknown): { externalId: string; metadata: Record<string, unknown> } {
  const message = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  const fields = message as { externalId?: unknown; metadata?: unknown } | null;
  if (!fields || typeof fields.externalId !== 'string' || typeof fields.metadata !== 'object' || !fields.metadata) {
    throw new Error("message: must be Check Email's message (externalId and metadata.email)");
  }
  return { externalId: fields.externalId, metadata: fields.metadata as Record<string, unknown> };
}
