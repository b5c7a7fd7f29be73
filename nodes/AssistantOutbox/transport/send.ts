// What sending needs from n8n: the Telegram bot credential (token and Bot API base URL), the Slack app credential
// (bot token and Web API URL), n8n's SMTP credential (email; the assistant's address from ASSISTANT_EMAIL_ADDRESS or
// the SMTP login), the callback signing secret, and the one outbound guard (allow list and protected endpoints from
// the environment n8n runs with).
import type { IExecuteFunctions, INodeCredentialDescription } from 'n8n-workflow';
import { type SendOptions, createOutboundGuard, outboundAllowList, protectedEndpointsFromEnv } from 'assistant-core';
import { SMTP_CREDENTIAL, smtpServer, type N8nSmtpCredential } from '../../shared/transport/smtp';

export const TELEGRAM_CREDENTIAL = 'telegramApi';
export const CALLBACK_SIGNING_CREDENTIAL = 'assistantCallbackSigningApi';
export const SLACK_APP_CREDENTIAL = 'assistantSlackAppApi';
export { SMTP_CREDENTIAL };

export const deliveryCredentials: INodeCredentialDescription[] = [
  { name: TELEGRAM_CREDENTIAL, required: false, displayOptions: { show: { operation: ['deliverDue'] } } },
  { name: CALLBACK_SIGNING_CREDENTIAL, required: false, displayOptions: { show: { operation: ['deliverDue'] } } },
  { name: SLACK_APP_CREDENTIAL, required: false, displayOptions: { show: { operation: ['deliverDue'] } } },
  { name: SMTP_CREDENTIAL, required: false, displayOptions: { show: { operation: ['deliverDue'] } } },
];

/** The email channel's sending settings, or null when no SMTP host or no address is set (email rows then retry). */
export function emailSendConfig(smtp: N8nSmtpCredential | null, env: NodeJS.ProcessEnv): SendOptions['email'] {
  const host = smtp?.host?.trim();
  const address = (env.ASSISTANT_EMAIL_ADDRESS?.trim() || smtp?.user?.trim() || '').toLowerCase();
  if (!smtp || !host || !/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(address)) return null;
  return {
    address,
    smtp: smtpServer(smtp, host),
  };
}

async function optionalCredential<T extends object>(context: IExecuteFunctions, name: string): Promise<T | null> {
  try {
    return await context.getCredentials<T>(name);
  } catch {
    return null;
  }
}

export async function sendOptions(context: IExecuteFunctions): Promise<SendOptions> {
  const telegram = await optionalCredential<{ accessToken?: string; baseUrl?: string }>(context, TELEGRAM_CREDENTIAL);
  const signing = await optionalCredential<{ secret?: string }>(context, CALLBACK_SIGNING_CREDENTIAL);
  const slack = await optionalCredential<{ botToken?: string; apiUrl?: string }>(context, SLACK_APP_CREDENTIAL);
  const smtp = await optionalCredential<N8nSmtpCredential>(context, SMTP_CREDENTIAL);
  return {
    guard: createOutboundGuard({
      allow: outboundAllowList(process.env),
      protect: protectedEndpointsFromEnv(process.env),
    }),
    telegram: telegram?.accessToken
      ? { token: telegram.accessToken, baseUrl: telegram.baseUrl || 'https://api.telegram.org' }
      : null,
    slack: slack?.botToken ? { botToken: slack.botToken, apiUrl: slack.apiUrl || 'https://slack.com/api' } : null,
    email: emailSendConfig(smtp, process.env),
    signingSecret: signing?.secret || null,
  };
}
