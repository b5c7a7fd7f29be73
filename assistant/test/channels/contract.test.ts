// The channel contract, one suite run per channel against its fake: Telegram against the loopback Bot API (its
// Updates in, sendMessage and sendChatAction out), the webhook against its JSON body and a loopback callback
// receiver, the web chat against the console's chat body, the outbox it pulls and the receipt its page gives once
// it has shown a message. Each channel: a message in (text, reply-to, and voice or a file where the channel takes
// them), bad input refused naming the field, the same sender always the same user, replies within its limits with
// hostile text kept harmless, a question's answers as buttons or their fallback, delivery with its receipt in the
// outbox (delivered once), and "typing…" where the channel has it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import type { ChannelAdapter } from '../../src/channels';
import type { OutboxMessage } from '../../src/delivery/outbox';
import { identityKey } from '../../src/identities/identities';
import { useAssistantDatabase } from '../database';
import {
  startTelegramBotApiFake,
  visibleTextOfHtml,
  type TelegramBotApiFake,
} from '../../../test/fakes/telegram-bot-api';
import { TelegramBotApiFakeControl } from '../../../test/fakes/telegram-bot-api';
import { CallbackReceiverControl, startCallbackReceiver } from '../../../test/fakes/callback-receiver';
import type { RunningServer } from '../../../test/fakes/http-util';
import { startSlackFake, type SlackFake } from '../../../test/fakes/slack-api';
import { visibleTextOfMrkdwn } from '../../src/channels/slack';
import {
  composeEmail,
  startDovecot,
  startSmtpReceiver,
  type Dovecot,
  type SmtpReceiver,
} from '../../../test/fakes/mail-servers';

const db = useAssistantDatabase();
const SECRET = 'contract-callback-secret';
const TOKEN = '7000000001:contract-test-token';
const HOSTILE = '<script>alert(1)</script> **bold** & <b onclick="x()">not a tag</b> [x](javascript:alert(1))';

let telegramFake: TelegramBotApiFake;
let telegram: TelegramBotApiFakeControl;
let receiver: RunningServer;
let callbacks: CallbackReceiverControl;

beforeAll(async () => {
  telegramFake = await startTelegramBotApiFake({ token: TOKEN });
  telegram = new TelegramBotApiFakeControl(telegramFake.url);
  receiver = await startCallbackReceiver();
  callbacks = new CallbackReceiverControl(receiver.url);
});
afterAll(async () => {
  await telegramFake?.close();
  await receiver?.close();
});

/** A sender on the channel: their id there, the user behind it, and where the channel delivers to them. */
interface Recipient {
  externalId: string;
  userId: string;
}

interface ChannelUnderTest {
  adapter: () => ChannelAdapter;
  /** What the channel's fake delivers for a text message from `externalId`. */
  textIn(externalId: string, text: string, replyTo?: string): Promise<unknown>;
  /** A voice note or a file, on channels that take them. */
  voiceIn?(externalId: string): Promise<unknown>;
  fileIn?(externalId: string): Promise<unknown>;
  /** Bad input: refused naming `field`, or ignored. */
  badIn: { raw: unknown; field?: string };
  newSender(): string;
  /** A user reachable on the channel (their outbox messages go to it). */
  recipient(): Promise<Recipient>;
  /** What the recipient got: the texts the fake received (push), or the messages shown on the channel (pull). */
  received(recipient: Recipient): Promise<string[]>;
  /** Pull channels: what the client lists after an outbox id (GET /webhook/agent/outbox). */
  pull?(recipient: Recipient, after: number): Promise<OutboxMessage[]>;
  /** The chat actions the fake saw for the recipient (chat-action channels). */
  typingSeen?(recipient: Recipient): Promise<string[]>;
}

let senders = 0;
const unique = () => `${Date.now() % 100_000}${++senders}`;

function channelContract(name: string, channel: ChannelUnderTest) {
  describe(`the channel contract: ${name}`, () => {
    it('a text message comes in verbatim with its sender, session and reply-to', async () => {
      const adapter = channel.adapter();
      const sender = channel.newSender();
      const parsed = adapter.parseInbound(await channel.textIn(sender, '  hello <there> ', '42'));
      if (parsed.kind !== 'message') throw new Error(`not a message: ${JSON.stringify(parsed)}`);
      expect(parsed.message).toMatchObject({ channel: adapter.name, text: '  hello <there> ', replyTo: '42' });
      expect(parsed.message.sessionId).not.toBe('');
      expect(parsed.message.text.length).toBeLessThanOrEqual(adapter.limits.maxInboundLength);
    });

    it('a voice note and a file come in where the channel takes them', async () => {
      const adapter = channel.adapter();
      if (channel.voiceIn) {
        const parsed = adapter.parseInbound(await channel.voiceIn(channel.newSender()));
        expect(parsed.kind === 'message' && parsed.message.voice?.fileId).toBeTruthy();
      }
      if (channel.fileIn) {
        const parsed = adapter.parseInbound(await channel.fileIn(channel.newSender()));
        expect(parsed.kind === 'message' && parsed.message.file?.mimeType).toBe('application/pdf');
      }
      if (!channel.voiceIn && !channel.fileIn) {
        // Text only: a body with an audio field is refused by name, never taken as text.
        const body = (await channel.textIn(channel.newSender(), 'x')) as Record<string, unknown>;
        const parsed = adapter.parseInbound({ ...body, voice: 'AAAA' });
        expect(parsed).toMatchObject({ kind: 'refused', refusal: { field: 'voice' } });
      }
    });

    it('bad input is refused naming the field (or ignored), never taken as a message', () => {
      const parsed = channel.adapter().parseInbound(channel.badIn.raw);
      expect(parsed.kind).not.toBe('message');
      if (channel.badIn.field)
        expect(parsed).toMatchObject({ kind: 'refused', refusal: { field: channel.badIn.field } });
    });

    it('the same sender is always the same user; another sender another', async () => {
      const adapter = channel.adapter();
      const sender = channel.newSender();
      const parsed = adapter.parseInbound(await channel.textIn(sender, 'hi'));
      if (parsed.kind !== 'message') throw new Error('not a message');
      const id = adapter.identityOf(parsed.message.externalId);
      const first = await assistant.resolveIdentity(db.pool, id.channel, id.externalId);
      const again = await assistant.resolveIdentity(db.pool, id.channel, id.externalId);
      expect(again.userId).toBe(first.userId);
      expect(first.identity).toBe(identityKey(id.channel, id.externalId));
      const other = adapter.identityOf(channel.newSender());
      if (adapter.name === 'web') {
        // Only the operator signs in to the console: every web chat sender is the operator's API identity.
        expect(other).toEqual({ channel: 'api', externalId: assistant.OPERATOR_API_USER_ID });
      } else {
        const someoneElse = await assistant.resolveIdentity(db.pool, other.channel, other.externalId);
        expect(someoneElse.userId).not.toBe(first.userId);
      }
    });

    it('a reply is sent within the channel limits, hostile text kept harmless', () => {
      const adapter = channel.adapter();
      const long = `${HOSTILE}\n\n${'word '.repeat(Math.ceil((adapter.limits.maxPartLength * 1.5) / 5))}end.`;
      const text = long.length > 200_000 ? `${HOSTILE} short` : long;
      const parts = adapter.render({ text });
      for (const part of parts) {
        // Telegram counts the text after its entities are parsed; the others count what is sent.
        const shown = part.format === 'telegram-html' ? visibleTextOfHtml(part.text) : part.text;
        expect(shown.length).toBeLessThanOrEqual(adapter.limits.maxPartLength);
        expect(part.format).toBe(adapter.limits.formatting);
      }
      const joined = parts.map((part) => part.text).join('');
      if (adapter.limits.formatting === 'telegram-html') {
        expect(joined).not.toMatch(/<script|<b onclick/);
        expect(visibleTextOfHtml(parts[0].text)).toContain('<script>alert(1)</script>');
        expect(parts.length).toBeGreaterThan(1);
      } else if (adapter.limits.formatting === 'slack-mrkdwn') {
        // Slack's mrkdwn: &, < and > escaped (no <!channel>, <@user> or link injected), the model's http(s) links kept.
        expect(joined).not.toMatch(/<script|<b onclick|<javascript/);
        expect(visibleTextOfMrkdwn(parts[0].text)).toContain('<script>alert(1)</script>');
        expect(parts.length).toBeGreaterThan(1);
      } else {
        // Plain and Markdown go out verbatim (the caller or the console's renderer escapes them), split at word
        // boundaries when longer than a part.
        expect(joined).toBe(text);
        expect(parts.length).toBe(Math.max(1, Math.ceil(text.length / adapter.limits.maxPartLength)));
      }
    });

    it("a question's answers: buttons or a field, else spelled out, else as data", () => {
      const adapter = channel.adapter();
      const approval = { id: 'q-1', kind: 'approval' as const, question: 'Install the expert "x"?' };
      const code = { id: 'q-2', kind: 'one_time_code' as const, question: 'The code from your app?' };
      const [asked] = adapter.render({ text: 'Install the expert "x"?', question: approval }).slice(-1);
      const [askedCode] = adapter.render({ text: 'I need a code.', question: code }).slice(-1);
      expect(asked.text).toContain('Install the expert "x"?');
      expect(askedCode.text).toContain('The code from your app?');
      if (adapter.limits.buttons === 'native') {
        expect(asked.buttons).toEqual([
          { label: 'Yes', answer: 'yes' },
          { label: 'No', answer: 'no' },
        ]);
        expect(askedCode.field).toEqual({ kind: 'code', replyTo: 'q-2' });
      } else if (adapter.limits.buttons === 'text') {
        expect(asked.text).toContain('Answer yes or no');
        expect(askedCode.text).toContain('Send the code');
        expect(asked.buttons).toBeUndefined();
      } else {
        expect(asked.buttons ?? askedCode.field).toBeUndefined();
      }
    });

    it('a proactive message is delivered, and the receipt is in the outbox', async () => {
      const adapter = channel.adapter();
      const recipient = await channel.recipient();
      const text = `Reminder ${unique()}: call the bank`;
      const { message } = await assistant.queueMessage(db.pool, recipient.userId, { kind: 'reminder', text });
      const now = new Date(Date.now() + 1000);
      let receipt: OutboxMessage;
      if (adapter.limits.delivery === 'pull') {
        // Stored for the client, which pulls it (GET /webhook/agent/outbox), shows it, and says so (the receipt).
        expect(message.status).toBe('stored');
        const pulled = await channel.pull!(recipient, message.id - 1);
        expect(pulled.map((row) => row.text)).toEqual([text]);
        [receipt] = await assistant.recordShownOnChannel(db.pool, adapter, recipient.userId, [message.id], now);
      } else {
        const claimed = (await assistant.claimDueMessages(db.pool, now)).find((row) => row.id === message.id)!;
        expect(claimed.channel).toBe(adapter.name);
        receipt = await assistant.deliverOnChannel(db.pool, adapter, claimed, {
          now,
          maxAttempts: 3,
          retrySeconds: 30,
        });
      }
      expect(receipt).toMatchObject({ id: message.id, status: 'delivered', channel: adapter.name, attempts: 1 });
      expect(receipt).toMatchObject({ lastError: null, deliveredAt: now.toISOString() });
      expect(await channel.received(recipient)).toContain(text);
      // Delivered once: never due again, and a second receipt (a page shown twice) changes nothing.
      if (adapter.limits.delivery === 'pull') {
        const later = new Date(now.getTime() + 60_000);
        const [again] = await assistant.recordShownOnChannel(db.pool, adapter, recipient.userId, [message.id], later);
        expect(again).toEqual(receipt);
      }
      expect(await assistant.getOutboxMessage(db.pool, message.id)).toEqual(receipt);
    });

    it('"typing…" where the channel shows it; none where it has none', async () => {
      const adapter = channel.adapter();
      if (adapter.limits.typing !== 'chat-action') {
        expect(adapter.typing).toBeUndefined();
        return;
      }
      const recipient = await channel.recipient();
      await adapter.typing!(recipient.externalId);
      expect(await channel.typingSeen!(recipient)).toEqual(['typing']);
    });
  });
}

async function deliverUpdate(body: Record<string, unknown>): Promise<unknown> {
  // No webhook is registered with the fake, so it keeps the Update it built and answers it.
  const response = await fetch(`${telegramFake.url}/__deliver`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await response.json()) as { update: unknown }).update;
}

const telegramUser = (chatId: string) => ({ id: Number(chatId), is_bot: false, first_name: 'Test' });
const telegramChat = (chatId: string) => ({ id: Number(chatId), type: 'private' });

channelContract('Telegram', {
  adapter: () => assistant.telegramChannel({ baseUrl: telegramFake.url, token: TOKEN }),
  textIn: (chatId, text, replyTo) =>
    deliverUpdate({
      message: { chat_id: chatId, text, ...(replyTo ? { reply_to: Number(replyTo) } : {}) },
    }),
  voiceIn: (chatId) =>
    deliverUpdate({
      update: {
        message: {
          message_id: 9,
          from: telegramUser(chatId),
          chat: telegramChat(chatId),
          voice: { file_id: 'voice-1', duration: 2, mime_type: 'audio/ogg', file_size: 3000 },
        },
      },
    }),
  fileIn: (chatId) =>
    deliverUpdate({
      update: {
        message: {
          message_id: 10,
          from: telegramUser(chatId),
          chat: telegramChat(chatId),
          document: { file_id: 'doc-1', file_name: 'bill.pdf', mime_type: 'application/pdf', file_size: 9000 },
        },
      },
    }),
  badIn: { raw: { update_id: 1, message: { message_id: 2, chat: { id: 5 }, sticker: {} } }, field: undefined },
  newSender: () => `555${unique()}`,
  async recipient() {
    const chatId = `556${unique()}`;
    return { externalId: chatId, userId: (await assistant.resolveIdentity(db.pool, 'telegram', chatId)).userId };
  },
  received: async (recipient) => (await telegram.sent(recipient.externalId)).map((m) => visibleTextOfHtml(m.text)),
  typingSeen: async (recipient) => (await telegram.actions(recipient.externalId)).map((a) => a.action),
});

channelContract('the webhook', {
  adapter: () =>
    assistant.webhookChannel({
      guard: assistant.createOutboundGuard({ allow: [new URL(receiver.url).host], protect: [] }),
      signingSecret: SECRET,
    }),
  textIn: async (userId, text, replyTo) => ({
    message: text,
    user_id: userId,
    ...(replyTo ? { reply_to: replyTo } : {}),
  }),
  badIn: { raw: { message: 'hi', user_id: '' }, field: 'user_id' },
  newSender: () => `webhook-user-${unique()}`,
  async recipient() {
    const externalId = `callback-user-${unique()}`;
    const { userId } = await assistant.resolveIdentity(db.pool, 'api', externalId);
    await assistant.setCallbackUrl(db.pool, userId, `${receiver.url}/cb/${externalId}`);
    return { externalId, userId };
  },
  async received(recipient) {
    const hits = await callbacks.received(`/cb/${recipient.externalId}`);
    return hits
      .filter((hit) => assistant.verifySignature(SECRET, hit.body, hit.signature))
      .map((hit) => (JSON.parse(hit.body) as { text: string }).text);
  },
});

channelContract('the web chat', {
  adapter: () => assistant.webChatChannel(),
  textIn: async (_operator, text, replyTo) => ({ message: text, ...(replyTo ? { reply_to: replyTo } : {}) }),
  badIn: { raw: { message: 'hi', user_id: 'someone-else' }, field: 'user_id' },
  newSender: () => assistant.OPERATOR_API_USER_ID,
  async recipient() {
    const { userId } = await assistant.resolveIdentity(db.pool, 'api', assistant.OPERATOR_API_USER_ID);
    return { externalId: assistant.OPERATOR_API_USER_ID, userId };
  },
  pull: (recipient, after) => assistant.listOutbox(db.pool, recipient.userId, { after: String(after) }),
  async received(recipient) {
    const rows = await assistant.listOutbox(db.pool, recipient.userId, { limit: 500 });
    return rows.filter((row) => row.channel === 'web' && row.status === 'delivered').map((row) => row.text);
  },
});

// Email against Debian's dovecot (IMAP: each message delivered to the assistant's mailbox and read back as n8n's
// Email Trigger reads it) and npm's smtp-server (SMTP submission with a login; what is sent recorded).
const EMAIL_ADDRESS = 'assistant@example.test';
let dovecot: Dovecot;
let smtp: SmtpReceiver;
beforeAll(async () => {
  [dovecot, smtp] = await Promise.all([startDovecot(EMAIL_ADDRESS), startSmtpReceiver(EMAIL_ADDRESS)]);
}, 60_000);
afterAll(async () => {
  await dovecot?.close();
  await smtp?.close();
});

channelContract('email', {
  adapter: () =>
    assistant.emailChannel({
      address: EMAIL_ADDRESS,
      smtp: { host: smtp.host, port: smtp.port, user: smtp.user, password: smtp.password, disableStartTls: true },
    }),
  async textIn(from, text, replyTo) {
    const messageId = `<c${unique()}@mail.example.test>`;
    const inReplyTo = replyTo ? { inReplyTo: `<${replyTo}>` } : {};
    await dovecot.deliver(
      await composeEmail({ from, to: EMAIL_ADDRESS, subject: 'Hello', text, messageId, ...inReplyTo }),
    );
    const [item] = await dovecot.triggerItems();
    return item;
  },
  badIn: { raw: { from: { value: [{ address: 'ana@example.test' }] }, text: 'no Message-ID' }, field: 'messageId' },
  newSender: () => `sender${unique()}@example.test`,
  async recipient() {
    const address = `reader${unique()}@example.test`;
    return { externalId: address, userId: (await assistant.resolveIdentity(db.pool, 'email', address)).userId };
  },
  received: async (recipient) => smtp.textsTo(recipient.externalId),
});

// Slack against the loopback Slack (test/fakes/slack-api.ts): its event_callback payloads in, chat.postMessage out.
const SLACK_BOT_TOKEN = 'xoxb-contract-test';
let slackFake: SlackFake;
beforeAll(async () => {
  slackFake = await startSlackFake({ botToken: SLACK_BOT_TOKEN, appToken: 'xapp-contract-test', signingSecret: 's' });
});
afterAll(async () => slackFake?.close());

channelContract('Slack', {
  adapter: () => assistant.slackChannel({ apiUrl: slackFake.apiUrl, botToken: SLACK_BOT_TOKEN }),
  textIn: async (user, text, replyTo) => slackFake.messageEvent(user, text, replyTo ? { threadTs: replyTo } : {}),
  fileIn: async (user) =>
    slackFake.messageEvent(user, '', {
      files: [{ id: 'F0BILL0001', name: 'bill.pdf', mimetype: 'application/pdf', size: 9000 }],
    }),
  badIn: {
    raw: {
      type: 'event_callback',
      event: { type: 'message', channel_type: 'im', channel: 'D0X1', ts: '1.1', text: 'hi' },
    },
    field: 'event.user',
  },
  newSender: () => `U0C${unique()}`,
  async recipient() {
    const user = `U0R${unique()}`;
    return { externalId: user, userId: (await assistant.resolveIdentity(db.pool, 'slack', user)).userId };
  },
  received: async (recipient) => slackFake.posted(recipient.externalId).map((m) => visibleTextOfMrkdwn(m.text)),
});
