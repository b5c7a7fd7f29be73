// The Assistant Email node's operations on a fresh Postgres 17 with real mail servers on loopback (Debian's dovecot:
// IMAP, read as n8n's Email Trigger reads it; npm's smtp-server: SMTP with a login): Check Email lets an allowed
// sender in as a turn and drops a stranger unanswered; Follow Turn emails the stored reply in the thread (a question
// first, its Message-ID kept so a reply answers it); Send Reply answers in the thread; a bad SMTP login fails the item
// naming it; Settle Held Copies releases a reply's copy for someone on the Cc after a yes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askUser, finishTurn, receiveMessage, setDmPolicy } from 'assistant-core';

import { AssistantEmail } from '../../../nodes/AssistantEmail/AssistantEmail.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';
import {
  composeEmail,
  startDovecot,
  startSmtpReceiver,
  type Dovecot,
  type EmailDraft,
  type SmtpReceiver,
} from '../../fakes/mail-servers';

const ASSISTANT = 'assistant@example.test';
const ANA = 'ana@example.test';
let db: NodeDatabase;
let dovecot: Dovecot;
let smtp: SmtpReceiver;
let counter = 0;

beforeAll(async () => {
  [db, dovecot, smtp] = await Promise.all([
    startNodeDatabase({ migrated: true }),
    startDovecot(ASSISTANT),
    startSmtpReceiver(ASSISTANT),
  ]);
  await setDmPolicy(db.pool, { channel: 'email', policy: 'allowlist', allow: [ANA] });
}, 120_000);
afterAll(async () => {
  await dovecot?.close();
  await smtp?.close();
  await db?.stop();
});

function smtpCredential(password = smtp.password) {
  return { host: smtp.host, port: smtp.port, user: smtp.user, password, secure: false, disableStartTls: true };
}

async function run(parameters: Parameters, options: { password?: string; continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantEmail(), {
    parameters,
    credentials: { postgres: db.credential, smtp: smtpCredential(options.password) },
    continueOnFail: options.continueOnFail,
  });
  return output.map((item) => item.json);
}

async function emailIn(draft: Partial<EmailDraft> & { from: string; text: string }) {
  const messageId = `<n${Date.now()}.${++counter}@mail.example.test>`;
  await dovecot.deliver(await composeEmail({ to: ASSISTANT, subject: 'Hello', messageId, ...draft } as EmailDraft));
  const [item] = await dovecot.triggerItems();
  return item;
}

const sentTo = (address: string) => smtp.sent.filter((email) => email.envelopeTo.includes(address));

describe('Assistant Email operations', () => {
  it('Check Email: an allowed sender becomes a turn; a stranger is dropped unanswered', async () => {
    const [turn] = await run({ operation: 'checkEmail', email: await emailIn({ from: ANA, text: 'Hi there' }) });
    expect(turn).toMatchObject({ action: 'turn', message: { channel: 'email', externalId: ANA, text: 'Hi there' } });
    expect(typeof turn.userId).toBe('string');
    const before = smtp.sent.length;
    const [stranger] = await run({
      operation: 'checkEmail',
      email: await emailIn({ from: 'eve@elsewhere.test', text: 'Hi' }),
    });
    expect(stranger).toMatchObject({ action: 'drop' });
    expect(stranger.reason).toContain('eve@elsewhere.test');
    expect(smtp.sent.length).toBe(before);
  });

  it('Follow Turn: the question and then the reply are emailed in the thread', async () => {
    const [checked] = await run({ operation: 'checkEmail', email: await emailIn({ from: ANA, text: 'Book it?' }) });
    const userId = checked.userId as string;
    const message = checked.message as { sessionId: string; metadata: { email: { message_id: string } } };
    const stored = await receiveMessage(db.pool, userId, {
      message: 'Book it?',
      sessionId: message.sessionId,
      channel: 'email',
    });
    const question = await askUser(db.pool, userId, {
      kind: 'approval',
      question: 'Pay 40 EUR for the table?',
      turnId: stored.turnId,
    });
    const following = run({ operation: 'followTurn', userId, turnId: stored.turnId, message, deadlineSeconds: 20 });
    // The run goes on once the question is out; its reply is then emailed too.
    for (let i = 0; i < 80 && !sentTo(ANA).some((e) => e.parsed.text?.includes('Pay 40 EUR')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await db.pool.query('UPDATE assistant.pending_questions SET answered_at = now(), answer = $2 WHERE id = $1', [
      question.id,
      'yes',
    ]);
    await finishTurn(db.pool, userId, stored.turnId, 'Booked for 8 pm.');
    const [followed] = await following;
    expect(followed).toMatchObject({ status: 'answered', asked: [question.id] });
    const asked = sentTo(ANA).find((e) => e.parsed.text?.includes('Pay 40 EUR'))!;
    expect(asked.parsed.text).toContain('Answer yes or no (reply to this email).');
    expect(asked.parsed.inReplyTo).toBe(`<${message.metadata.email.message_id}>`);
    const kept = await db.pool.query('SELECT channel_message_id FROM assistant.pending_questions WHERE id = $1', [
      question.id,
    ]);
    expect(`<${kept.rows[0].channel_message_id}>`).toBe(asked.parsed.messageId);
    const reply = sentTo(ANA).find((e) => e.parsed.text?.includes('Booked for 8 pm.'))!;
    expect(reply.parsed.subject).toBe('Re: Hello');
    expect(reply.parsed.inReplyTo).toBe(`<${message.metadata.email.message_id}>`);
  });

  it('Send Reply answers in the thread; a bad SMTP login fails the item naming it', async () => {
    const [checked] = await run({ operation: 'checkEmail', email: await emailIn({ from: ANA, text: 'Ping' }) });
    const [sent] = await run({ operation: 'sendReply', message: checked.message, text: 'Pong' });
    expect(sent).toMatchObject({ to: ANA });
    expect(sentTo(ANA).some((e) => e.parsed.messageId === `<${sent.messageId}>`)).toBe(true);
    const [failed] = await run(
      { operation: 'sendReply', message: checked.message, text: 'Pong' },
      { password: 'wrong', continueOnFail: true },
    );
    expect(JSON.stringify(failed)).toMatch(/refused the login/);
    expect(JSON.stringify(failed)).not.toContain('wrong"');
  });

  it('Follow Turn with someone on the Cc: the reply goes to the sender; the copy waits for a yes, then is released', async () => {
    const email = await emailIn({ from: ANA, cc: 'carl@partner.test', text: 'Tell Carl too, please.' });
    const [checked] = await run({ operation: 'checkEmail', email });
    const userId = checked.userId as string;
    const message = checked.message as { sessionId: string };
    const stored = await receiveMessage(db.pool, userId, {
      message: 'Tell Carl too',
      sessionId: message.sessionId,
      channel: 'email',
    });
    await finishTurn(db.pool, userId, stored.turnId, 'Meeting moved to 3 pm.');
    const [followed] = await run({
      operation: 'followTurn',
      userId,
      turnId: stored.turnId,
      message,
      deadlineSeconds: 5,
    });
    expect(sentTo('carl@partner.test')).toEqual([]);
    const questionId = (followed.asked as string[])[0];
    const asking = sentTo(ANA).find((e) => e.parsed.text?.includes('Meeting moved to 3 pm.'))!;
    expect(asking.parsed.text).toContain('Shall I also send this reply to carl@partner.test?');
    await db.pool.query('UPDATE assistant.pending_questions SET answered_at = now(), answer = $2 WHERE id = $1', [
      questionId,
      'Yes',
    ]);
    const [settled] = await run({ operation: 'settleHeld', userId, questionId, answer: 'Yes' });
    expect(settled).toEqual({ released: 1, refused: 0 });
  });
});
