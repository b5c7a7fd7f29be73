// What sending needs from n8n: the Telegram bot credential (token and Bot API base URL), the Slack app credential
// (bot token and Web API URL), the callback signing secret, and the one outbound guard (allow list and protected
// endpoints from the environment n8n runs with).
import type { IExecuteFunctions, INodeCredentialDescription } from 'n8n-workflow';
import { type SendOptions, createOutboundGuard, outboundAllowList, protectedEndpointsFromEnv } from 'assistant-core';

export const TELEGRAM_CREDENTIAL = 'telegramApi';
export const CALLBACK_SIGNING_CREDENTIAL = 'assistantCallbackSigningApi';
export const SLACK_APP_CREDENTIAL = 'assistantSlackAppApi';

export const deliveryCredentials: INodeCredentialDescription[] = [
  { name: TELEGRAM_CREDENTIAL, required: false, displayOptions: { show: { operation: ['deliverDue'] } } },
  { name: CALLBACK_SIGNING_CREDENTIAL, required: false, displayOptions: { show: { operation: ['deliverDue'] } } },
  { name: SLACK_APP_CREDENTIAL, required: false, displayOptions: { show: { operation: ['deliverDue'] } } },
];

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
  return {
    guard: createOutboundGuard({
      allow: outboundAllowList(process.env),
      protect: protectedEndpointsFromEnv(process.env),
    }),
    telegram: telegram?.accessToken
      ? { token: telegram.accessToken, baseUrl: telegram.baseUrl || 'https://api.telegram.org' }
      : null,
    slack: slack?.botToken ? { botToken: slack.botToken, apiUrl: slack.apiUrl || 'https://slack.com/api' } : null,
    signingSecret: signing?.secret || null,
  };
}
