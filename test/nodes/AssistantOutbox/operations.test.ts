// The Assistant Outbox node's operations on a fresh Postgres 17: queue (once per key), the outbox as an HTTP answer
// for pulling (404 for an unknown user), the callback URL stored, delivery to a signed loopback callback, and the
// receipts of the web chat (a stored message it showed becomes delivered on 'web'; bad fields named).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queueMessage, resolveIdentity, verifySignature } from 'assistant-core';

import { AssistantOutbox } from '../../../nodes/AssistantOutbox/AssistantOutbox.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

const SECRET = 'node-test-callback-secret';
let db: NodeDatabase;
let userId: string;
let server: http.Server;
let hookUrl: string;
const hits: Array<{ body: string; signature: string | undefined }> = [];

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'outbox-node')).userId;
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      hits.push({ body, signature: request.headers['x-signature'] as string | undefined });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  process.env.ASSISTANT_OUTBOUND_ALLOW = new URL(hookUrl).host;
});
afterAll(async () => {
  delete process.env.ASSISTANT_OUTBOUND_ALLOW;
  server?.close();
  await db?.stop();
});

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantOutbox(), {
    parameters,
    credentials: { postgres: db.credential, assistantCallbackSigningApi: { secret: SECRET } },
    ...options,
  });
  return output.map((item) => item.json);
}

describe('Assistant Outbox operations', () => {
  it('stores the callback URL, queues once per key and delivers signed', async () => {
    await run([{ operation: 'setCallbackUrl', userId, callbackUrl: hookUrl }]);
    const [queued] = await run([
      {
        operation: 'queueMessage',
        userId,
        kind: 'notice',
        text: 'hello',
        dedupeKey: 'n:1',
        data: '{"a":1}',
        tickId: '',
      },
    ]);
    expect(queued).toMatchObject({ queued: true, channel: 'webhook', status: 'pending', data: { a: 1 } });
    const [again] = await run([
      { operation: 'queueMessage', userId, kind: 'notice', text: 'hello', dedupeKey: 'n:1', data: '{}', tickId: '' },
    ]);
    expect(again).toMatchObject({ queued: false, id: queued.id });
    const [report] = await run([{ operation: 'deliverDue', now: '' }]);
    expect(report).toMatchObject({ delivered: 1, failures: 0 });
    expect(hits).toHaveLength(1);
    expect(verifySignature(SECRET, hits[0].body, hits[0].signature)).toBe(true);
  });

  it('lists the outbox as an HTTP answer; an unknown user is a 404 naming user_id; bad data is named', async () => {
    const [listed] = await run([{ operation: 'listOutbox', externalId: 'outbox-node', after: '0', limit: '10' }]);
    expect(listed).toMatchObject({
      statusCode: 200,
      body: { messages: [expect.objectContaining({ text: 'hello', status: 'delivered' })] },
    });
    const [unknown] = await run([{ operation: 'listOutbox', externalId: 'nobody', after: '0', limit: '10' }]);
    expect(unknown).toMatchObject({ statusCode: 404, body: { error: { field: 'user_id' } } });
    const [bad] = await run(
      [{ operation: 'queueMessage', userId, kind: 'notice', text: 'x', data: '[1', dedupeKey: '', tickId: '' }],
      {
        continueOnFail: true,
      },
    );
    expect(String(bad.error)).toContain('data: must be a JSON object');
  });

  it("records the web chat's receipts as an HTTP answer: stored messages delivered on 'web', bad fields named", async () => {
    const reader = (await resolveIdentity(db.pool, 'api', 'outbox-node-reader')).userId;
    const { message } = await queueMessage(db.pool, reader, { kind: 'reminder', text: 'call the bank' });
    expect(message).toMatchObject({ channel: 'pull', status: 'stored' });
    const now = '2026-11-29T12:00:00.000Z';
    const receipt = { user_id: 'outbox-node-reader', channel: 'web', shown: [message.id, message.id + 1000] };
    const [recorded] = await run([{ operation: 'recordReceipts', receipt, now }]);
    expect(recorded).toEqual({
      statusCode: 200,
      body: {
        receipts: [{ id: message.id, channel: 'web', status: 'delivered', delivered_at: now }],
        unknown_ids: [message.id + 1000],
      },
    });
    const [listed] = await run([
      { operation: 'listOutbox', externalId: 'outbox-node-reader', after: String(message.id - 1), limit: '10' },
    ]);
    expect(listed).toMatchObject({
      body: { messages: [expect.objectContaining({ channel: 'web', status: 'delivered', delivered_at: now })] },
    });
    const [asText] = await run([{ operation: 'recordReceipts', receipt: JSON.stringify({ ...receipt, shown: [] }) }]);
    expect(asText).toMatchObject({ statusCode: 400, body: { error: { field: 'shown' } } });
    const [unknown] = await run([{ operation: 'recordReceipts', receipt: { ...receipt, user_id: 'nobody' }, now }]);
    expect(unknown).toMatchObject({ statusCode: 404, body: { error: { code: 'unknown_user', field: 'user_id' } } });
  });
});
