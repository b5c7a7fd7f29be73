// n8n's SMTP credential (the Send Email node's: host, port, SSL/TLS, STARTTLS off, login, EHLO name) and the
// assistant's own address: the node's parameter, else ASSISTANT_EMAIL_ADDRESS from n8n's environment, else the SMTP
// login when it is an address. Read per execution; the password never leaves this module except to the SMTP server.
import type { IExecuteFunctions, INodeCredentialDescription } from 'n8n-workflow';
import { AssistantInputError, type EmailChannelConfig } from 'assistant-core';
import { SMTP_CREDENTIAL, smtpServer, type N8nSmtpCredential } from '../../shared/transport/smtp';

export { SMTP_CREDENTIAL };

export const smtpCredentials: INodeCredentialDescription[] = [{ name: SMTP_CREDENTIAL, required: true }];

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** The assistant's address (the From of what it sends, its own mail never answered); a bad one is named. */
export function assistantAddress(parameter: unknown, env: NodeJS.ProcessEnv, smtpUser?: string): string {
  const given = typeof parameter === 'string' ? parameter.trim() : '';
  if (given) {
    if (!ADDRESS.test(given)) throw new AssistantInputError('assistantAddress', `"${given}" is not an email address`);
    return given.toLowerCase();
  }
  const fromEnv = env.ASSISTANT_EMAIL_ADDRESS?.trim();
  if (fromEnv) {
    if (!ADDRESS.test(fromEnv)) {
      throw new AssistantInputError('ASSISTANT_EMAIL_ADDRESS', `"${fromEnv}" is not an email address`);
    }
    return fromEnv.toLowerCase();
  }
  if (smtpUser && ADDRESS.test(smtpUser.trim())) return smtpUser.trim().toLowerCase();
  throw new AssistantInputError(
    'assistantAddress',
    "the assistant's address is not set (this parameter, ASSISTANT_EMAIL_ADDRESS, or an SMTP login that is an address)",
  );
}

export async function emailConfig(context: IExecuteFunctions, itemIndex: number): Promise<EmailChannelConfig> {
  const smtp = await context.getCredentials<N8nSmtpCredential>(SMTP_CREDENTIAL, itemIndex);
  const host = (smtp.host ?? '').trim();
  if (!host) throw new AssistantInputError('host', 'the SMTP credential names no host');
  const address = assistantAddress(context.getNodeParameter('assistantAddress', itemIndex, ''), process.env, smtp.user);
  return {
    address,
    smtp: smtpServer(smtp, host),
  };
}
