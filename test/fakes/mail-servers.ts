// Real mail servers on loopback for the email channel's tests.
// IMAP: Debian's dovecot-imapd (scripts/install-test-tools.sh) started with a throwaway config, passwd-file and
// Maildir in a temporary folder on a free 127.0.0.1 port (plain IMAP, PLAIN/LOGIN logins; as root its mail
// processes run as the package's dovecot user, otherwise as the caller). What the world sends the assistant is
// APPENDed to its INBOX; `triggerItems` reads the new messages the way n8n's Email Trigger (IMAP) node does in its
// "resolved" format (packages/nodes-base/nodes/EmailReadImap/v2/utils.ts, parseRawEmail: the whole source through
// mailparser's simpleParser, headers as {key: line}, headerLines and attachments left out, attributes.uid, a JSON
// copy) and marks them seen.
// SMTP: npm's smtp-server as the provider's submission server: a login is required (AUTH PLAIN/LOGIN; a wrong one
// is 535 5.7.8 as Postfix answers, mail before a login 530), recipients on `refuse` get 550 5.1.1, and every accepted
// message is recorded with its envelope and its parse.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';

import { ImapFlow } from 'imapflow';
import { simpleParser, type ParsedMail } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer';
import { SMTPServer } from 'smtp-server';

const DOVECOT = '/usr/sbin/dovecot';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface MailboxAccount {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface Dovecot {
  account: MailboxAccount;
  /** Puts a raw RFC 5322 message into the INBOX, as a delivery would. */
  deliver(raw: string | Buffer): Promise<void>;
  /** The unseen messages as n8n's Email Trigger (IMAP, format "resolved") emits them, then marked seen. */
  triggerItems(): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

function dovecotConfig(dir: string, port: number, root: boolean): string {
  const me = userInfo();
  const mailUser = root ? 'dovecot' : me.username;
  const uid = root ? execFileSync('id', ['-u', 'dovecot']).toString().trim() : String(me.uid);
  return `base_dir = ${dir}/run
state_dir = ${dir}/state
instance_name = dovecot-test-${path.basename(dir)}
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = ${uid}
default_internal_user = ${mailUser}
default_login_user = ${root ? 'dovenull' : me.username}
mail_location = maildir:${dir}/mail/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/users
}
userdb {
  driver = static
  args = uid=${mailUser} gid=${root ? 'dovecot' : String(me.gid)} home=${dir}/mail/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
  chroot =
}
service anvil {
  chroot =
}
`;
}

async function waitForPort(port: number, log: string, dir: string): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < 10_000) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let said = '';
  try {
    said = readFileSync(log, 'utf8');
  } catch {
    said = '(no log)';
  }
  throw new Error(`dovecot did not listen on 127.0.0.1:${port} within 10 s (${dir}): ${said}`);
}

/** Starts dovecot with one mailbox, `user` / `password`. */
export async function startDovecot(user = 'assistant@example.test', password = 'imap-test-password'): Promise<Dovecot> {
  try {
    execFileSync(DOVECOT, ['--version']);
  } catch {
    throw new Error(`${DOVECOT} is missing: install dovecot-imapd (scripts/install-test-tools.sh)`);
  }
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'dovecot-test-'));
  chmodSync(dir, 0o755);
  for (const sub of ['run', 'state', 'mail']) mkdirSync(path.join(dir, sub));
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'dovecot']).toString());
    const gid = Number(execFileSync('id', ['-g', 'dovecot']).toString());
    chownSync(path.join(dir, 'mail'), uid, gid);
  }
  writeFileSync(path.join(dir, 'users'), `${user}:{PLAIN}${password}::::::\n`, { mode: 0o644 });
  const port = await freePort();
  const config = path.join(dir, 'dovecot.conf');
  writeFileSync(config, dovecotConfig(dir, port, root));
  // The master daemonises; `-F` keeps it in the foreground as our child, so close() ends exactly it.
  const master = spawn(DOVECOT, ['-F', '-c', config], { stdio: 'ignore' });
  try {
    await waitForPort(port, path.join(dir, 'dovecot.log'), dir);
  } catch (error) {
    master.kill('SIGTERM');
    throw error;
  }
  const account = { host: '127.0.0.1', port, user, password };

  const client = async () => {
    const imap = new ImapFlow({
      host: account.host,
      port: account.port,
      secure: false,
      auth: { user, pass: password },
      logger: false,
    });
    await imap.connect();
    return imap;
  };

  return {
    account,
    async deliver(raw) {
      const imap = await client();
      try {
        await imap.append('INBOX', raw);
      } finally {
        await imap.logout();
      }
    },
    async triggerItems() {
      const imap = await client();
      const items: Array<Record<string, unknown>> = [];
      try {
        const lock = await imap.getMailboxLock('INBOX');
        try {
          const uids = (await imap.search({ seen: false }, { uid: true })) || [];
          for (const uid of uids) {
            const message = await imap.fetchOne(String(uid), { source: true }, { uid: true });
            if (!message || !message.source) continue;
            items.push(triggerItem(await simpleParser(message.source), uid));
          }
          if (uids.length > 0) await imap.messageFlagsAdd(uids, ['\\Seen'], { uid: true });
        } finally {
          lock.release();
        }
      } finally {
        await imap.logout();
      }
      return items;
    },
    async close() {
      if (master.exitCode === null) {
        const exited = new Promise((resolve) => master.once('exit', resolve));
        master.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** parseRawEmail of n8n's Email Trigger v2 ("resolved"): the parse, headers as {key: line}, JSON-safe. */
export function triggerItem(parsed: ParsedMail, uid: number): Record<string, unknown> {
  const headers: Record<string, string> = {};
  for (const header of parsed.headerLines) headers[header.key] = header.line;
  const json = { ...parsed, headers, headerLines: undefined, attachments: undefined, attributes: { uid } };
  return JSON.parse(JSON.stringify(json)) as Record<string, unknown>;
}

export interface EmailDraft {
  from: string;
  to: string;
  cc?: string;
  subject: string;
  text: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  headers?: Record<string, string>;
}

/** An RFC 5322 message as a mail client writes it (nodemailer's MIME composer). */
export async function composeEmail(draft: EmailDraft): Promise<Buffer> {
  const mail = new MailComposer({
    from: draft.from,
    to: draft.to,
    ...(draft.cc ? { cc: draft.cc } : {}),
    subject: draft.subject,
    text: draft.text,
    messageId: draft.messageId,
    ...(draft.inReplyTo ? { inReplyTo: draft.inReplyTo } : {}),
    ...(draft.references ? { references: draft.references } : {}),
    ...(draft.headers ? { headers: draft.headers } : {}),
    date: new Date(),
  }).compile();
  mail.keepBcc = false;
  return mail.build();
}

export interface SentEmail {
  envelopeFrom: string;
  envelopeTo: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpReceiver {
  host: string;
  port: number;
  user: string;
  password: string;
  sent: SentEmail[];
  /** Recipients answered 550 5.1.1. */
  refuse: Set<string>;
  /** The logins the server refused. */
  refusedLogins: number;
  /** The messages sent to `address`, as their text parts (line ends trimmed). */
  textsTo(address: string): string[];
  close(): Promise<void>;
}

export async function startSmtpReceiver(user = 'assistant@example.test', password = 'smtp-test-password') {
  const sent: SentEmail[] = [];
  const refuse = new Set<string>();
  const state = { refusedLogins: 0 };
  const server = new SMTPServer({
    name: 'smtp.example.test',
    secure: false,
    disabledCommands: ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: false,
    allowInsecureAuth: true,
    size: 10 * 1024 * 1024,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === user && auth.password === password) return callback(null, { user });
      state.refusedLogins += 1;
      const error = Object.assign(new Error('5.7.8 Error: authentication failed'), { responseCode: 535 });
      return callback(error);
    },
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address.toLowerCase())) {
        const error = Object.assign(new Error('5.1.1 Recipient address rejected: User unknown'), { responseCode: 550 });
        return callback(error);
      }
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        simpleParser(raw)
          .then((parsed) => {
            sent.push({
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
              raw,
              parsed,
            });
            callback();
          })
          .catch((error: Error) => callback(error));
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const receiver: SmtpReceiver = {
    host: '127.0.0.1',
    port,
    user,
    password,
    sent,
    refuse,
    get refusedLogins() {
      return state.refusedLogins;
    },
    textsTo: (address) =>
      sent
        .filter((email) => email.envelopeTo.includes(address.toLowerCase()))
        .map((email) => (email.parsed.text ?? '').replace(/\s+$/, '')),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return receiver;
}
