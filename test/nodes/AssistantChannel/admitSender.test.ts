// The gate in the Assistant Channel node on a real Postgres 17: Admit Sender (the webhook's, any channel's) and Check
// Telegram Update "By DM Policy" — the owner as today, a stranger refused or told to pair, a code pairing them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuePairingCode, setDmPolicy, updateInstanceSettings } from 'assistant-core';

import { AssistantChannel } from '../../../nodes/AssistantChannel/AssistantChannel.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
const now = new Date('2026-11-29T10:00:00Z');

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  await updateInstanceSettings(db.pool, { ownerTelegramChatId: '100' });
});
afterAll(async () => db?.stop());

const run = (parameters: Parameters, items: { json: Record<string, unknown> }[]) =>
  runNode(new AssistantChannel(), { parameters, items: items as never, credentials: { postgres: db.credential } });

const update = (chatId: number, text: string) => ({
  json: { update_id: chatId, message: { message_id: 1, chat: { id: chatId }, text } },
});

describe('Check Telegram Update, by DM policy', () => {
  const parameters = { operation: 'checkTelegramUpdate', allowedChats: 'policy', refusal: 'Private <here>.' };

  it('passes the owner on; refuses a stranger under the owner policy with the node’s refusal', async () => {
    const [accepted, refused] = await run(parameters, [update(100, 'Hello'), update(201, 'Hello')]);
    expect(accepted.map((item) => [item.json.chatId, item.json.message])).toEqual([['100', 'Hello']]);
    expect(refused).toEqual([
      { json: { chatId: '201', text: 'Private &lt;here&gt;.', parseMode: 'HTML' }, pairedItem: { item: 1 } },
    ]);
  });

  it('tells a stranger to pair under the pairing policy, pairs them with a code, then passes them on', async () => {
    await setDmPolicy(db.pool, { channel: 'telegram', policy: 'pairing' });
    const owner = (await db.pool.query("SELECT user_id FROM assistant.identities WHERE identity = 'telegram:100'"))
      .rows[0].user_id as string;
    const { code } = await issuePairingCode(db.pool, { callerUserId: owner, personName: 'Ana', now: new Date() });
    const [none, prompt] = await run(parameters, [update(202, 'Hello')]);
    expect(none).toEqual([]);
    expect(prompt[0].json.text).toContain('send the code here');
    const [, paired] = await run(parameters, [update(202, code)]);
    expect(paired[0].json.text).toContain('You are paired, Ana');
    const [accepted] = await run(parameters, [update(202, 'What is on today?')]);
    expect(accepted[0].json).toMatchObject({ chatId: '202', message: 'What is on today?' });
  });
});

describe('Admit Sender', () => {
  const parameters = { operation: 'admitSender', identityChannel: 'api', text: '', now: now.toISOString() };

  it('lets an API caller in by default (open: the key is the check), adding who they are', async () => {
    const [admitted, strangers] = await run({ ...parameters, externalId: 'app-1' }, [{ json: { message: 'hi' } }]);
    expect(strangers).toEqual([]);
    expect(admitted[0].json).toMatchObject({ message: 'hi', admission: 'person', userId: expect.any(String) });
  });

  it('answers a stranger 403 under the owner policy and 200 with the pairing reply under pairing', async () => {
    await setDmPolicy(db.pool, { channel: 'api', policy: 'owner' });
    const [, refused] = await run({ ...parameters, externalId: 'app-2' }, [{ json: {} }]);
    expect(refused[0].json).toMatchObject({
      kind: 'refused',
      statusCode: 403,
      body: { error: { code: 'not_allowed', message: 'Sorry, this is a private assistant.' } },
    });
    await setDmPolicy(db.pool, { channel: 'api', policy: 'pairing' });
    const [, pairing] = await run({ ...parameters, externalId: 'app-2' }, [{ json: {} }]);
    expect(pairing[0].json).toMatchObject({
      kind: 'pairing-reply',
      statusCode: 200,
      body: { reply: expect.any(String) },
    });
  });
});
