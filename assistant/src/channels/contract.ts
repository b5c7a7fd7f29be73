// The one contract every channel (Telegram, the webhook, the web chat) keeps: what comes in (text, voice, file,
// reply-to), who it is from (channel + external id → an identity key → a user), what goes out within the channel's
// limits (length, formatting, a question's buttons or their text fallback), "typing…", and each send's outcome as
// the delivery receipt the outbox records (recordSendOutcome).
import type { OutboxMessage, SendOutcome } from '../delivery/outbox';
import type { QuestionKind } from '../pending/pending-questions';
import type { VoiceNote } from '../voice/voice-note';

export const CHANNEL_NAMES = ['telegram', 'webhook', 'web', 'email', 'slack'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

/** A file the user sent: a reference on the channel (Telegram's file_id), or its bytes. */
export interface InboundFile {
  fileId?: string;
  fileName?: string;
  mimeType: string;
  size?: number;
}

export interface InboundMessage {
  channel: ChannelName;
  /** The sender's id inside the channel (a Telegram chat id, a webhook user_id, the console's operator). */
  externalId: string;
  sessionId: string;
  /** The text; empty when the message is a voice note still to transcribe, or a file alone. */
  text: string;
  voice?: VoiceNote;
  file?: InboundFile;
  /** What the message answers: a question id (webhook, web chat) or the channel's message id (Telegram). */
  replyTo?: string;
  metadata: Record<string, unknown>;
}

/** The envelope a refused message is answered with: {error: {code, message, field?}}. */
export interface InboundRefusal {
  statusCode: number;
  code: string;
  message: string;
  field?: string;
}

export type InboundResult =
  | { kind: 'message'; message: InboundMessage }
  | { kind: 'refused'; refusal: InboundRefusal }
  | { kind: 'ignored'; reason: string };

/** The identity table's channels (assistant.identities keys are "<channel>:<external id>"). */
export type IdentityChannel = 'telegram' | 'api' | 'email' | 'slack';

export interface ChannelLimits {
  /** The longest text one outgoing message may carry; longer replies are split into parts. */
  maxPartLength: number;
  /** The longest incoming text taken. */
  maxInboundLength: number;
  /**
   * telegram-html: Telegram's HTML subset, everything else escaped; markdown: rendered safely by the page;
   * slack-mrkdwn: Slack's mrkdwn, &, < and > escaped; plain.
   */
  formatting: 'telegram-html' | 'markdown' | 'slack-mrkdwn' | 'plain';
  /** native: a question's answers as buttons or a field; text: spelled out in the message; data: in the JSON. */
  buttons: 'native' | 'text' | 'data';
  /** chat-action: the channel shows "typing…" on request; page: the page shows it while it waits; none. */
  typing: 'chat-action' | 'page' | 'none';
  /** push: the assistant sends (and records the outcome); pull: the client lists the outbox and keeps its cursor. */
  delivery: 'push' | 'pull';
}

/** A question a run waits on (the pending-question store), to show with the message that asks it. */
export interface QuestionPrompt {
  id: string;
  kind: QuestionKind;
  question: string;
}

export interface AnswerButton {
  label: string;
  /** The message the button sends, as a reply to the question. */
  answer: string;
}

export interface OutboundMessage {
  text: string;
  question?: QuestionPrompt;
  /** The outbox row being delivered, when it is one (a callback carries its id, so clients de-duplicate). */
  outbox?: OutboxMessage;
}

export interface RenderedPart {
  text: string;
  format: ChannelLimits['formatting'];
  /** Native buttons (only on the last part). */
  buttons?: AnswerButton[];
  /** A field to type the answer in (only on the last part): a one-time code or free text. */
  field?: { kind: 'code' | 'text'; replyTo: string };
}

export interface ChannelAdapter {
  name: ChannelName;
  limits: ChannelLimits;
  /** Normalises what the channel delivered; a refusal names the field. */
  parseInbound(raw: unknown): InboundResult;
  /** The identity key (assistant.identities) of a sender: the only place a channel's ids become identities. */
  identityOf(externalId: string): { channel: IdentityChannel; externalId: string };
  /** The message as the channel's parts, within its limits. */
  render(message: OutboundMessage): RenderedPart[];
  /** Push channels: sends to `target` (a chat id, a callback URL); the outcome is the delivery receipt. */
  send?(target: string, message: OutboundMessage): Promise<SendOutcome>;
  /** chat-action channels: shows "typing…" once (a chat action lasts 5 s); rejects with what the channel said. */
  typing?(target: string): Promise<void>;
}

/** The buttons (an approval) or the field (a code, a free answer) a question is answered with. */
export function questionControls(question: QuestionPrompt): Pick<RenderedPart, 'buttons' | 'field'> {
  if (question.kind === 'approval') {
    return {
      buttons: [
        { label: 'Yes', answer: 'yes' },
        { label: 'No', answer: 'no' },
      ],
    };
  }
  return { field: { kind: question.kind === 'one_time_code' ? 'code' : 'text', replyTo: question.id } };
}

/** The text fallback of a question's controls, for a channel without buttons. */
export function questionControlsAsText(question: QuestionPrompt, replyHow: string): string {
  if (question.kind === 'approval') return `Answer yes or no (${replyHow}).`;
  if (question.kind === 'one_time_code') return `Send the code (${replyHow}).`;
  return `Send your answer (${replyHow}).`;
}

/** The text of a message with its question, when the question is not already the text. */
export function messageText(message: OutboundMessage): string {
  const question = message.question?.question;
  if (!question || message.text.includes(question)) return message.text;
  return message.text.trim() === '' ? question : `${message.text}\n\n${question}`;
}
