// Sending one outbox message on its channel, through the channel contract (channels/): Telegram to the Bot API base
// URL the operator configured; Slack by chat.postMessage to the user's DM; a callback through the outbound guard
// (checked again on every send), signed with HMAC-SHA256; email by SMTP to the user's address; a pull message is
// not sent (it waits to be listed).
import { sendOnChannel } from '../channels/delivery';
import { emailChannel, type EmailChannelConfig } from '../channels/email';
import { slackChannel, type SlackBotConfig } from '../channels/slack';
import { telegramChannel } from '../channels/telegram';
import { webhookChannel } from '../channels/webhook';
import type { OutboundGuard } from '../outbound/guard';
import type { OutboxMessage, SendOutcome } from './outbox';

export { callbackBody, SIGNATURE_HEADER, signBody, verifySignature } from '../channels/webhook';

export interface SendOptions {
  guard: OutboundGuard;
  /** Bot token and Bot API base URL (https://api.telegram.org unless the operator changed it). */
  telegram?: { token: string; baseUrl: string } | null;
  /** The Slack app's bot token and Web API base URL (https://slack.com/api unless the credential says otherwise). */
  slack?: Omit<SlackBotConfig, 'timeoutMs'> | null;
  /** The assistant's address and the SMTP credential (the email channel). */
  email?: EmailChannelConfig | null;
  /** The callback signing secret. */
  signingSecret?: string | null;
  /** Per request; default 15 s. */
  timeoutMs?: number;
}

export async function sendMessage(message: OutboxMessage, options: SendOptions): Promise<SendOutcome> {
  const timeoutMs = options.timeoutMs;
  if (message.channel === 'telegram') {
    const bot = options.telegram ? { ...options.telegram, timeoutMs } : null;
    return sendOnChannel(telegramChannel(bot), message);
  }
  if (message.channel === 'slack') {
    return sendOnChannel(slackChannel(options.slack ? { ...options.slack, timeoutMs } : null), message);
  }
  if (message.channel === 'email') {
    if (!options.email) return { status: 'retry', error: 'the email channel is not configured (its SMTP credential)' };
    const smtp = options.email.smtp ? { ...options.email.smtp, timeoutMs } : null;
    return sendOnChannel(emailChannel({ ...options.email, smtp }), message);
  }
  if (message.channel === 'webhook') {
    const callback = { guard: options.guard, signingSecret: options.signingSecret, timeoutMs };
    return sendOnChannel(webhookChannel(callback), message);
  }
  return { status: 'failed', error: `a ${message.channel} message is not sent; it waits in the outbox to be pulled` };
}
