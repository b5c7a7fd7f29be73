// Sending outbox messages to loopback servers that speak the real protocols: a signed callback (verified with the
// secret), a callback that fails then succeeds, Telegram's sendMessage with its message id, a Telegram that never
// answers after the request left (unknown, never repeated), one that cannot be reached (retried), and a 400 (failed).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { createUser } from '../helpers';

const SECRET = 'callback-signing-secret-for-tests';
const db = useAssistantDatabase();
let server: http.Server;
let base: string;
const received: Array<{ path: string; body: string; signature: string | undefined }> = [];
/** Callback paths and how many more times each answers 503. */
const failuresLeft = new Map<string, number>();

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const path = request.url ?? '';
      received.push({ path, body, signature: request.headers['x-signature'] as string | undefined });
      if (path.endsWith('/hang/sendMessage')) return; // never answers
      if (path.endsWith('/bad/sendMessage')) {
        response.writeHead(400, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ ok: false, description: 'Bad Request: chat not found' }));
      }
      if (path.includes('/sendMessage')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        return response.end(JSON.stringify({ ok: true, result: { message_id: 777, chat: { id: 1 }, text: 'x' } }));
      }
      const left = failuresLeft.get(path) ?? 0;
      if (left > 0) {
        failuresLeft.set(path, left - 1);
        response.writeHead(503);
        return response.end('busy');
      }
      response.writeHead(204);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
});

const guard = () =>
  assistant.createOutboundGuard({
    allow: [new URL(base).host],
    protect: [{ host: '127.0.0.1', port: 1, name: 'n8n' }],
  });

async function webhookMessage(path: string): Promise<assistant.OutboxMessage> {
  const userId = await createUser(db.pool, 'cb');
  await assistant.setCallbackUrl(db.pool, userId, `${base}${path}`);
  const { message } = await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'hello' });
  return message;
}

describe('sendMessage', () => {
  it('POSTs a callback signed with the secret, in the documented body', async () => {
    const message = await webhookMessage('/cb/signed');
    expect(message).toMatchObject({ channel: 'webhook', status: 'pending' });
    const outcome = await assistant.sendMessage(message, { guard: guard(), signingSecret: SECRET });
    expect(outcome).toEqual({ status: 'delivered' });
    const hit = received.find((r) => r.path === '/cb/signed')!;
    expect(assistant.verifySignature(SECRET, hit.body, hit.signature)).toBe(true);
    expect(assistant.verifySignature('other-secret', hit.body, hit.signature)).toBe(false);
    expect(JSON.parse(hit.body)).toMatchObject({ id: message.id, kind: 'notice', text: 'hello' });
    expect(Object.keys(JSON.parse(hit.body)).sort()).toEqual(['created_at', 'data', 'id', 'kind', 'text', 'user_id']);
  });

  it('a callback that fails twice is retried with backoff, then delivered; the limit ends in failed', async () => {
    failuresLeft.set('/cb/flaky', 2);
    await assistant.updateInstanceSettings(db.pool, { deliveryMaxAttempts: 3, deliveryRetrySeconds: 10 });
    const message = await webhookMessage('/cb/flaky');
    const options = { guard: guard(), signingSecret: SECRET };
    let report = await assistant.deliverDueMessages(db.pool, new Date(), options);
    expect(report.messages.find((m) => m.id === message.id)).toMatchObject({ status: 'pending', attempts: 1 });
    const next = await db.pool.query('SELECT next_attempt_at FROM assistant.outbox WHERE id = $1', [message.id]);
    expect((next.rows[0].next_attempt_at as Date).getTime()).toBeGreaterThan(Date.now() + 5_000);
    report = await assistant.deliverDueMessages(db.pool, new Date(Date.now() + 11_000), options);
    expect(report.messages.find((m) => m.id === message.id)).toMatchObject({ status: 'pending', attempts: 2 });
    report = await assistant.deliverDueMessages(db.pool, new Date(Date.now() + 40_000), options);
    expect(report.messages.find((m) => m.id === message.id)).toMatchObject({ status: 'delivered', attempts: 3 });

    failuresLeft.set('/cb/down', 100);
    const doomed = await webhookMessage('/cb/down');
    for (let i = 0; i < 3; i++)
      await assistant.deliverDueMessages(db.pool, new Date(Date.now() + 3_600_000 * (i + 1)), options);
    const row = await assistant.getOutboxMessage(db.pool, doomed.id);
    expect(row).toMatchObject({ status: 'failed', attempts: 3 });
    expect(row.lastError).toContain('gave up after 3 attempts: the callback answered HTTP 503');
    await assistant.updateInstanceSettings(db.pool, { deliveryMaxAttempts: 8, deliveryRetrySeconds: 30 });
  });

  it('a callback URL the guard refuses fails at once, naming the field', async () => {
    const userId = await createUser(db.pool, 'cb');
    await assistant.setCallbackUrl(db.pool, userId, 'http://127.0.0.1:9/closed');
    const { message } = await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'x' });
    const outcome = await assistant.sendMessage(message, { guard: guard(), signingSecret: SECRET });
    expect(outcome.status).toBe('failed');
    expect(outcome.status === 'failed' && outcome.error).toMatch(/^callback_url refused: /);
  });

  it('Telegram: delivered with the message id; unknown after a timeout; retry when unreachable; failed on a 400', async () => {
    const userId = (await assistant.resolveIdentity(db.pool, 'telegram', '5551234')).userId;
    const { message } = await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'hi <there>' });
    expect(message).toMatchObject({ channel: 'telegram', target: '5551234' });
    const send = (path: string, timeoutMs = 2_000) =>
      assistant.sendMessage(message, { guard: guard(), telegram: { token: `TOKEN${path}`, baseUrl: base }, timeoutMs });
    expect(await send('')).toEqual({ status: 'delivered', channelMessageId: '777' });
    const sent = received.filter((r) => r.path === '/botTOKEN/sendMessage').at(-1)!;
    expect(JSON.parse(sent.body)).toEqual({ chat_id: '5551234', text: 'hi &lt;there&gt;', parse_mode: 'HTML' });
    const hung = await send('/hang', 300);
    expect(hung.status).toBe('unknown');
    const bad = await send('/bad');
    expect(bad).toEqual({ status: 'failed', error: 'Telegram answered HTTP 400: Bad Request: chat not found' });
    const unreachable = await assistant.sendMessage(message, {
      guard: guard(),
      telegram: { token: 'T', baseUrl: 'http://127.0.0.1:9' },
    });
    expect(unreachable.status).toBe('retry');
    expect(JSON.stringify([hung, bad, unreachable])).not.toContain('TOKEN');
  });

  it('an unknown outcome is never sent again', async () => {
    const userId = (await assistant.resolveIdentity(db.pool, 'telegram', '5559999')).userId;
    const { message } = await assistant.queueMessage(db.pool, userId, { kind: 'notice', text: 'once' });
    const claimed = await assistant.claimDueMessages(db.pool, new Date(Date.now() + 1000));
    const mine = claimed.find((m) => m.id === message.id)!;
    await assistant.recordSendOutcome(
      db.pool,
      mine,
      { status: 'unknown', error: 'timeout' },
      {
        now: new Date(),
        maxAttempts: 8,
        retrySeconds: 30,
      },
    );
    const again = await assistant.claimDueMessages(db.pool, new Date(Date.now() + 86_400_000));
    expect(again.map((m) => m.id)).not.toContain(message.id);
    expect((await assistant.getOutboxMessage(db.pool, message.id)).status).toBe('unknown');
  });
});
