// n8n's own SMTP credential ('smtp') read into the email channel's server settings: one reading for the Assistant
// Email node and the outbox's deliveries.
import type { SmtpConfig } from 'assistant-core';

export const SMTP_CREDENTIAL = 'smtp';

/** The fields of n8n's SMTP credential the email channel uses. */
export interface N8nSmtpCredential {
  user?: string;
  password?: string;
  host?: string;
  port?: number | string;
  secure?: boolean;
  disableStartTls?: boolean;
  hostName?: string;
}

/** The server settings for `host` (already checked by the caller); the port defaults as n8n's Send Email does. */
export function smtpServer(smtp: N8nSmtpCredential, host: string): SmtpConfig {
  return {
    host,
    port: Number(smtp.port) || (smtp.secure ? 465 : 587),
    secure: smtp.secure === true,
    disableStartTls: smtp.disableStartTls === true,
    ...(smtp.user ? { user: smtp.user, password: smtp.password ?? '' } : {}),
    ...(smtp.hostName ? { hostName: smtp.hostName } : {}),
  };
}
