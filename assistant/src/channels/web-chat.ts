// The web chat (the operator's console, /console/chat) on the channel contract. The console signs its operator in
// and forwards each message to the webhook with the webhook's key (never given to the browser), so the sender is
// always the operator: the API identity "owner", the same user the approvals and the owner's Telegram chat use.
// Replies are Markdown the console renders safely; a question comes with buttons (an approval) or a field (a code,
// a free answer); the page shows "typing…" while it waits; proactive messages are pulled from the outbox
// (GET /webhook/agent/outbox) by the console and handed to the open page, the page's cursor being the receipt.
import { splitText } from '../channel/telegram-text';
import { MAX_ID_LENGTH } from '../channel/webhook-request';
import { OPERATOR_API_USER_ID } from '../pending/approvals';
import {
  messageText,
  questionControls,
  type ChannelAdapter,
  type InboundResult,
  type OutboundMessage,
  type RenderedPart,
} from './contract';

/** What one web chat message may hold (the console refuses longer ones before forwarding). */
export const WEB_CHAT_MAX_MESSAGE = 32_000;
/** The web chat's session on the webhook. */
export const WEB_CHAT_SESSION = 'web-chat';
const KNOWN_FIELDS = ['message', 'reply_to'];

const refused = (field: string, message: string): InboundResult => ({
  kind: 'refused',
  refusal: { statusCode: 400, code: 'invalid_request', message: `${field}: ${message}`, field },
});

/** The console's chat body {message, reply_to?}; the sender is the signed-in operator. */
export function parseWebChatBody(body: unknown): InboundResult {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refused('body', 'must be a JSON object like {"message": "..."}');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !KNOWN_FIELDS.includes(key));
  if (unknown !== undefined) return refused(unknown, 'is not a known field (use message, reply_to)');
  const { message, reply_to: replyTo } = fields;
  if (typeof message !== 'string' || message.trim() === '') return refused('message', 'must be a non-empty string');
  if (message.length > WEB_CHAT_MAX_MESSAGE) {
    return refused('message', `must be at most ${WEB_CHAT_MAX_MESSAGE} characters`);
  }
  if (replyTo !== undefined && replyTo !== null) {
    if (typeof replyTo !== 'string' || replyTo.trim() === '' || replyTo.length > MAX_ID_LENGTH) {
      return refused('reply_to', 'must be the id of the question this message answers');
    }
  }
  return {
    kind: 'message',
    message: {
      channel: 'web',
      externalId: OPERATOR_API_USER_ID,
      sessionId: WEB_CHAT_SESSION,
      text: message,
      ...(typeof replyTo === 'string' ? { replyTo: replyTo.trim() } : {}),
      metadata: { web_chat: true },
    },
  };
}

/** Markdown parts of at most WEB_CHAT_MAX_MESSAGE characters; a question's controls on the last. */
export function renderWebChat(message: OutboundMessage): RenderedPart[] {
  const parts: RenderedPart[] = splitText(messageText(message), WEB_CHAT_MAX_MESSAGE).map((text) => ({
    text,
    format: 'markdown',
  }));
  if (message.question && parts.length > 0) Object.assign(parts[parts.length - 1], questionControls(message.question));
  return parts;
}

export function webChatChannel(): ChannelAdapter {
  return {
    name: 'web',
    limits: {
      maxPartLength: WEB_CHAT_MAX_MESSAGE,
      maxInboundLength: WEB_CHAT_MAX_MESSAGE,
      formatting: 'markdown',
      buttons: 'native',
      typing: 'page',
      delivery: 'pull',
    },
    parseInbound: parseWebChatBody,
    // Only the operator signs in to the console: every sender is the API identity "owner".
    identityOf: () => ({ channel: 'api', externalId: OPERATOR_API_USER_ID }),
    render: renderWebChat,
  };
}
