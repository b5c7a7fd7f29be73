// Sending one email by SMTP (nodemailer, as n8n's Send Email node does) with the fields of n8n's SMTP credential,
// and what the server said mapped to a delivery receipt: accepted → delivered; refused before the message went
// (no connection, a 4xx, a greylist) → retry; refused for good (a 5xx: a bad login, a refused recipient) → failed;
// no answer after the message data was sent → unknown (it may have gone out: never repeated).
import { createTransport } from 'nodemailer';

import type { SendOutcome } from '../delivery/outbox';

/** n8n's SMTP credential (credentials/Smtp.credentials.ts): host, port, SSL/TLS, STARTTLS off, login, EHLO name. */
export interface SmtpConfig {
  host: string;
  port: number;
  /** SSL/TLS from the start (port 465); otherwise STARTTLS when the server offers it. */
  secure?: boolean;
  disableStartTls?: boolean;
  user?: string;
  password?: string;
  /** The name said in EHLO. */
  hostName?: string;
  /** Tests and private servers with their own certificate. */
  allowUnauthorizedCerts?: boolean;
  /** Per stage (connect, greeting, each command); default 15 s. */
  timeoutMs?: number;
}

export interface SmtpMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Without angle brackets. */
  messageId: string;
  inReplyTo?: string | null;
  references?: string[];
}

const angle = (id: string) => `<${id}>`;

interface SmtpError {
  code?: string;
  command?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/** What a failed send comes to; the credential's password is never in it (nodemailer does not echo it). */
export function smtpOutcome(error: SmtpError): SendOutcome {
  const said = (error.response ?? error.message ?? 'unknown error').slice(0, 300);
  if (error.code === 'EAUTH') {
    return { status: 'failed', error: `the SMTP server refused the login (the SMTP credential): ${said}` };
  }
  const code = error.responseCode ?? 0;
  if (code >= 500) return { status: 'failed', error: `the SMTP server refused the email: ${said}` };
  if (code >= 400) return { status: 'retry', error: `the SMTP server deferred the email: ${said}` };
  // Once the DATA command was accepted the message may be on its way: a lost answer then is not a refusal.
  if (error.command === 'DATA' || error.command === 'DATA_END' || error.command === 'MESSAGE') {
    return { status: 'unknown', error: `the SMTP server did not confirm the email: ${said}` };
  }
  return { status: 'retry', error: `the SMTP server could not be reached: ${said}` };
}

export async function sendSmtp(config: SmtpConfig, message: SmtpMessage): Promise<SendOutcome> {
  const timeout = config.timeoutMs ?? 15_000;
  const transport = createTransport({
    host: config.host,
    port: config.port,
    secure: config.secure === true,
    ignoreTLS: config.disableStartTls === true,
    ...(config.user ? { auth: { user: config.user, pass: config.password ?? '' } } : {}),
    ...(config.hostName ? { name: config.hostName } : {}),
    tls: { rejectUnauthorized: config.allowUnauthorizedCerts !== true },
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail({
      from: message.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html,
      messageId: angle(message.messageId),
      ...(message.inReplyTo ? { inReplyTo: angle(message.inReplyTo) } : {}),
      ...(message.references?.length ? { references: message.references.map(angle) } : {}),
      headers: { 'Auto-Submitted': message.inReplyTo ? 'auto-replied' : 'auto-generated' },
    });
    if ((info.rejected ?? []).length > 0) {
      return { status: 'failed', error: `the SMTP server refused the recipient ${message.to}: ${info.response}` };
    }
    return { status: 'delivered', channelMessageId: message.messageId };
  } catch (error) {
    return smtpOutcome(error as SmtpError);
  } finally {
    transport.close();
  }
}
