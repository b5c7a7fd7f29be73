// Email on the channel contract: a message in as n8n's Email Trigger (IMAP) hands it over in its "resolved" format
// (mailparser's parse of the whole message: from, to, cc, subject, messageId, inReplyTo, references, text, html,
// headers); the sender's address as the identity, let in only by the people gate (admit: the email channel's DM
// policy, e.g. an allow list of addresses; a stranger gets no answer, so forged senders cause no backscatter); the thread (the first of References,
// else In-Reply-To, else the message's own Message-ID) as the session; replies as plain text with a simple HTML
// alternative, In-Reply-To and References set so mail clients keep the thread; no buttons (a question's answers
// spelled out: the user replies to the email); no "typing…"; proactive messages sent by SMTP, the Message-ID as the
// delivery receipt (a reply to it answers the question it asked).
import { randomBytes } from 'node:crypto';

import type { Pool } from 'pg';

import { splitText } from '../channel/telegram-text';
import type { SendOutcome } from '../delivery/outbox';
import { admit } from '../people/admit';
import {
  messageText,
  questionControlsAsText,
  type ChannelAdapter,
  type InboundMessage,
  type InboundResult,
  type OutboundMessage,
  type RenderedPart,
} from './contract';
import { sendSmtp, type SmtpConfig } from './email-smtp';

/** The longest text one email carries; longer replies go out as several emails. */
export const EMAIL_MAX_PART = 100_000;
/** The longest incoming text taken (after the quoted reply is cut off). */
export const EMAIL_MAX_INBOUND = 100_000;
const ADDRESS = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

export interface EmailChannelConfig {
  /** The assistant's own address: the mailbox the IMAP credential reads, the From of what it sends. */
  address: string;
  /** The SMTP credential (n8n's SMTP type); without it nothing is sent. */
  smtp?: SmtpConfig | null;
}

/** An address as compared everywhere (trimmed, lower case), or null when it is not one. */
export function normaliseAddress(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const address = value.trim().toLowerCase();
  return address.length <= 254 && ADDRESS.test(address) ? address : null;
}

/** A Message-ID without its angle brackets (how the outbox and the pending questions keep it). */
export function bareMessageId(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().replace(/^<|>$/g, '').trim();
  return id === '' || /[\s<>]/.test(id) || id.length > 250 ? null : id;
}

function messageIdList(value: unknown): string[] {
  const raw = Array.isArray(value) ? value.join(' ') : typeof value === 'string' ? value : '';
  return (raw.match(/<[^<>\s]+>/g) ?? [raw.trim()]).map(bareMessageId).filter((id): id is string => id !== null);
}

/** mailparser's address object ({value: [{address, name}], text}) → its addresses. */
function addressesOf(field: unknown): Array<{ address: string; name: string }> {
  const objects = Array.isArray(field) ? field : [field];
  const found: Array<{ address: string; name: string }> = [];
  for (const object of objects) {
    const values = (object as { value?: unknown } | null)?.value;
    if (!Array.isArray(values)) continue;
    for (const entry of values as Array<{ address?: unknown; name?: unknown; group?: unknown }>) {
      if (Array.isArray(entry.group)) found.push(...addressesOf({ value: entry.group }));
      const address = normaliseAddress(entry.address);
      if (address) found.push({ address, name: typeof entry.name === 'string' ? entry.name : '' });
    }
  }
  return found;
}

/** The header as the trigger keeps it ("Auto-Submitted: auto-replied" under headers['auto-submitted']). */
function headerValue(headers: unknown, name: string): string {
  const line = (headers as Record<string, unknown> | undefined)?.[name];
  if (typeof line !== 'string') return '';
  return line.replace(new RegExp(`^${name}:`, 'i'), '').trim();
}

/** The user's new words: the quoted message under "On … wrote:" (or a ">" block at the end) is cut off. */
export function stripQuotedReply(text: string): string {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    const quotedAfter = lines.slice(i + 1).some((next) => next.startsWith('>'));
    if (/^(On .+wrote:|Am .+schrieb .+:|Le .+a écrit ?:|-----Original Message-----)$/i.test(line) && quotedAfter) {
      end = i;
      break;
    }
  }
  while (end > 0 && (lines[end - 1].startsWith('>') || lines[end - 1].trim() === '')) end--;
  // The transport ends a body with a line break; the words themselves are kept as written.
  return end === lines.length ? text.replace(/\r?\n$/, '') : lines.slice(0, end).join('\n');
}

function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/p>|<\/div>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

const refused = (statusCode: number, code: string, field: string, message: string): InboundResult => ({
  kind: 'refused',
  refusal: { statusCode, code, field, message: `${field}: ${message}` },
});

/** The thread a message belongs to: the first Message-ID of References, else In-Reply-To, else its own. */
export function threadRoot(messageId: string, inReplyTo: string | null, references: string[]): string {
  return references[0] ?? inReplyTo ?? messageId;
}

/** One email as n8n's Email Trigger (IMAP, format "resolved") gives it. Who may write is the gate's (admitEmail). */
export function parseEmail(raw: unknown, config: Pick<EmailChannelConfig, 'address'>): InboundResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return refused(400, 'invalid_email', 'email', 'must be the Email Trigger\'s item (format "resolved")');
  }
  const mail = raw as Record<string, unknown>;
  // Text only: the trigger's item never has these; a body that does is not an email and is not taken as one.
  const foreign = ['voice', 'file'].find((field) => field in mail);
  if (foreign) return refused(415, 'unsupported_message', foreign, 'the email channel takes the text of an email only');
  const [from] = addressesOf(mail.from);
  if (!from) return refused(400, 'invalid_email', 'from', 'the email names no sender address');
  const own = normaliseAddress(config.address);
  if (from.address === own) return { kind: 'ignored', reason: 'the email is the assistant’s own' };
  const autoSubmitted = headerValue(mail.headers, 'auto-submitted').toLowerCase();
  const precedence = headerValue(mail.headers, 'precedence').toLowerCase();
  if ((autoSubmitted && autoSubmitted !== 'no') || ['bulk', 'list', 'junk'].includes(precedence)) {
    // RFC 3834: never answer an automatic message (an out-of-office, a bounce): no mail loops.
    return { kind: 'ignored', reason: 'automatic emails (Auto-Submitted, Precedence) are not answered' };
  }
  const messageId = bareMessageId(mail.messageId);
  if (!messageId) return refused(400, 'invalid_email', 'messageId', 'the email has no Message-ID to reply to');
  const inReplyTo = messageIdList(mail.inReplyTo)[0] ?? null;
  const references = messageIdList(mail.references);
  const body = typeof mail.text === 'string' ? mail.text : typeof mail.html === 'string' ? htmlToText(mail.html) : '';
  const text = stripQuotedReply(body);
  if (text.trim() === '') return refused(422, 'empty_email', 'text', 'the email has no words above the quoted text');
  if (text.length > EMAIL_MAX_INBOUND) {
    return refused(413, 'email_too_long', 'text', `must be at most ${EMAIL_MAX_INBOUND} characters`);
  }
  const subject = typeof mail.subject === 'string' ? mail.subject.trim() : '';
  const others = [...addressesOf(mail.to), ...addressesOf(mail.cc)]
    .map((entry) => entry.address)
    .filter((address) => address !== own && address !== from.address);
  return {
    kind: 'message',
    message: {
      channel: 'email',
      externalId: from.address,
      sessionId: `email:${threadRoot(messageId, inReplyTo, references)}`,
      text,
      ...(inReplyTo ? { replyTo: inReplyTo } : {}),
      metadata: {
        email: {
          message_id: messageId,
          subject,
          from_name: from.name,
          references: [...references, ...(inReplyTo && !references.includes(inReplyTo) ? [inReplyTo] : [])],
          other_recipients: [...new Set(others)],
        },
      },
    },
  };
}

export type EmailAdmission =
  /** Run the turn for this user. */
  | { kind: 'turn'; userId: string }
  /** Answer in the thread with this text and nothing else (a pairing code's answer). */
  | { kind: 'reply'; text: string }
  /** Answer nothing: a stranger (the From of an email is easily forged; an answer would be backscatter). */
  | { kind: 'drop'; reason: string };

/** The people gate on an email: the email channel's DM policy (owner, pairing, allow list) decides. */
export async function admitEmail(pool: Pool, message: InboundMessage, now: Date): Promise<EmailAdmission> {
  const admission = await admit(pool, { channel: 'email', externalId: message.externalId, text: message.text, now });
  if (admission.kind === 'owner' || admission.kind === 'person') return { kind: 'turn', userId: admission.userId };
  if (admission.kind === 'pairing-reply') return { kind: 'reply', text: admission.reply };
  return { kind: 'drop', reason: `${message.externalId} may not write to the assistant (the email channel's policy)` };
}

export const REPLY_TO_ANSWER = 'Reply to this email to answer.';

/** The thread an outbox row continues (a reply held for approval): {subject, in_reply_to, references} in its data. */
export function emailThreadOf(
  data: Record<string, unknown>,
): Pick<EmailToSend, 'subject' | 'inReplyTo' | 'references'> | null {
  const thread = data.email_thread as { subject?: unknown; in_reply_to?: unknown; references?: unknown } | undefined;
  if (!thread || typeof thread.subject !== 'string') return null;
  return {
    subject: thread.subject,
    inReplyTo: bareMessageId(thread.in_reply_to),
    references: Array.isArray(thread.references)
      ? thread.references.map(bareMessageId).filter((id) => id !== null)
      : [],
  };
}

/** The subject of a reply: "Re: " once. */
export function replySubject(subject: string): string {
  const trimmed = subject.trim();
  if (trimmed === '') return 'Re: your message';
  return /^re:/i.test(trimmed) ? trimmed : `Re: ${trimmed}`;
}

const KIND_SUBJECTS: Record<string, string> = {
  reminder: 'Reminder',
  nudge: 'A nudge',
  action: 'Done for you',
  briefing: 'Your briefing',
  notice: 'Notice',
  check: 'Check',
  reply: 'Reply',
};

/** The subject of a proactive message: its kind and the start of its first line. */
export function proactiveSubject(kind: string, text: string): string {
  const first = text.trim().split('\n')[0].trim();
  const start = first.length > 60 ? `${first.slice(0, 57).trimEnd()}…` : first;
  return `${KIND_SUBJECTS[kind] ?? 'Message'}: ${start}`;
}

/** The text as plain-text parts; a question's answers spelled out on the last (email has no buttons). */
export function renderEmail(message: OutboundMessage): RenderedPart[] {
  let text = messageText(message);
  if (message.question) text += `\n\n${questionControlsAsText(message.question, 'reply to this email')}`;
  return splitText(text, EMAIL_MAX_PART).map((part) => ({ text: part, format: 'plain' as const }));
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The simple HTML alternative of a plain part: escaped, paragraphs at blank lines, line breaks kept. */
export function emailHtml(text: string): string {
  const paragraphs = text
    .split(/\n{2,}/)
    .filter((paragraph) => paragraph.trim() !== '')
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>\n')}</p>`);
  return `<!doctype html><html><body style="font-family:sans-serif">${paragraphs.join('\n')}</body></html>`;
}

/** A new Message-ID on the assistant's domain (without angle brackets). */
export function newMessageId(address: string): string {
  const domain = address.slice(address.lastIndexOf('@') + 1) || 'localhost';
  return `${randomBytes(12).toString('hex')}@${domain}`;
}

export interface EmailToSend {
  to: string;
  subject: string;
  text: string;
  /** The Message-ID answered (In-Reply-To) and the thread's References, oldest first. */
  inReplyTo?: string | null;
  references?: string[];
}

/** Sends one email per part (the same thread); the Message-IDs joined by commas are the receipt. */
export async function sendEmail(config: EmailChannelConfig, email: EmailToSend): Promise<SendOutcome> {
  if (!config.smtp) return { status: 'retry', error: 'no SMTP credential is configured (the email channel)' };
  const to = normaliseAddress(email.to);
  if (!to) return { status: 'failed', error: `the message's email address is not one: ${String(email.to)}` };
  const parts = splitText(email.text, EMAIL_MAX_PART);
  const ids: string[] = [];
  let references = [...(email.references ?? [])];
  let inReplyTo = email.inReplyTo ?? null;
  for (const [index, text] of parts.entries()) {
    const messageId = newMessageId(config.address);
    // References: the thread so far and the message answered (RFC 5322 3.6.4).
    if (inReplyTo && !references.includes(inReplyTo)) references = [...references, inReplyTo];
    const subject = parts.length > 1 ? `${email.subject} (${index + 1}/${parts.length})` : email.subject;
    const outcome = await sendSmtp(config.smtp, {
      from: config.address,
      to,
      subject,
      text,
      html: emailHtml(text),
      messageId,
      inReplyTo,
      references,
    });
    const partial = ids.length > 0 ? ` (after ${ids.length} part(s) went out: ${ids.join(',')})` : '';
    if (outcome.status !== 'delivered') {
      if (ids.length > 0) return { status: 'unknown', error: `${outcome.error}${partial}` };
      return outcome;
    }
    ids.push(messageId);
    inReplyTo = messageId;
  }
  return { status: 'delivered', channelMessageId: ids.join(',') };
}

/** The reply to an incoming email, in its thread (In-Reply-To: that email; References: the thread and it). */
export function replyTo(inbound: { externalId: string; metadata: Record<string, unknown> }, text: string): EmailToSend {
  const email = (inbound.metadata.email ?? {}) as { message_id?: string; subject?: string; references?: string[] };
  return {
    to: inbound.externalId,
    subject: replySubject(email.subject ?? ''),
    text,
    inReplyTo: email.message_id ?? null,
    references: email.references ?? [],
  };
}

export function emailChannel(config: EmailChannelConfig): ChannelAdapter {
  return {
    name: 'email',
    limits: {
      maxPartLength: EMAIL_MAX_PART,
      maxInboundLength: EMAIL_MAX_INBOUND,
      formatting: 'plain',
      buttons: 'text',
      typing: 'none',
      delivery: 'push',
    },
    parseInbound: (raw) => parseEmail(raw, config),
    identityOf: (externalId) => ({ channel: 'email', externalId: normaliseAddress(externalId) ?? externalId }),
    render: renderEmail,
    async send(target, message) {
      const data = message.outbox?.data ?? {};
      const thread = emailThreadOf(data);
      let text = renderEmail(message)
        .map((part) => part.text)
        .join('');
      // A message that asks (a budget raise): a reply to it answers the question.
      if (!message.question && typeof data.question_id === 'string') text += `\n\n${REPLY_TO_ANSWER}`;
      const subject = thread?.subject ?? proactiveSubject(message.outbox?.kind ?? 'notice', messageText(message));
      return sendEmail(config, { to: target, subject, text, ...thread });
    },
  };
}
