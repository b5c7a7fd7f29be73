// The Assistant Turns node's operations on a fresh Postgres 17, through the shared fake IExecuteFunctions: store the
// message, wait, store the reply or mark the turn failed, attach a file the run made; limits and bad input name the
// field.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askUser, resolveIdentity, updateInstanceSettings } from 'assistant-core';

import { AssistantTurns } from '../../../nodes/AssistantTurns/AssistantTurns.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'turns-node')).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean; cancelSignal?: AbortSignal } = {}) {
  const [output] = await runNode(new AssistantTurns(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output.map((item) => item.json);
}

describe('Assistant Turns operations', () => {
  it('store message → store reply → wait for reply returns it at once', async () => {
    const [stored] = await run([
      { operation: 'receiveMessage', userId, message: 'Hello', sessionId: 's1', options: {} },
    ]);
    expect(stored).toMatchObject({ kind: 'turn', userId, sessionId: 's1' });
    const turnId = stored.turnId as number;
    const [finished] = await run([{ operation: 'finishTurn', userId, turnId, reply: 'Hi!' }]);
    expect(finished).toMatchObject({ turnId, status: 'answered', reply: 'Hi!' });
    const [awaited] = await run([{ operation: 'awaitTurn', userId, turnId, deadlineSeconds: 0 }]);
    expect(awaited).toMatchObject({ status: 'answered', reply: 'Hi!', deadlineSeconds: 600 });
  });

  it('wait for reply returns the turn still pending at its deadline; mark failed records the error', async () => {
    const [stored] = await run([{ operation: 'receiveMessage', userId, message: 'Slow', options: {} }]);
    await updateInstanceSettings(db.pool, { replyDeadlineSeconds: 1 });
    try {
      const [awaited] = await run([{ operation: 'awaitTurn', userId, turnId: stored.turnId }]);
      expect(awaited).toMatchObject({ status: 'pending', deadlineSeconds: 1 });
    } finally {
      await updateInstanceSettings(db.pool, { replyDeadlineSeconds: 600 });
    }
    const [failed] = await run([{ operation: 'failTurn', userId, turnId: stored.turnId, error: '504 timed out' }]);
    expect(failed).toMatchObject({ status: 'failed', error: '504 timed out' });
  });

  it('wait for reply stops when n8n stops its execution, well before the deadline', async () => {
    const [stored] = await run([{ operation: 'receiveMessage', userId, message: 'Stopped?', options: {} }]);
    const execution = new AbortController();
    setTimeout(() => execution.abort(), 300);
    const started = Date.now();
    const [awaited] = await run([{ operation: 'awaitTurn', userId, turnId: stored.turnId, deadlineSeconds: 60 }], {
      cancelSignal: execution.signal,
    });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(awaited).toMatchObject({ status: 'pending', deadlineSeconds: 60 });
  });

  it("get turn state: a webhook caller's turn by its id, 404 for an unknown user or another user's turn", async () => {
    const [stored] = await run([{ operation: 'receiveMessage', userId, message: 'State?', options: {} }]);
    await run([{ operation: 'finishTurn', userId, turnId: stored.turnId, reply: 'Answered.' }]);
    const state = (externalId: string, turnIdText: string) =>
      run([{ operation: 'getTurnState', externalId, turnIdText }]).then(([item]) => item);
    expect(await state('turns-node', String(stored.turnId))).toEqual({
      statusCode: 200,
      body: {
        turn_id: stored.turnId,
        user_id: 'turns-node',
        session_id: 'default',
        status: 'answered',
        reply: 'Answered.',
      },
    });
    expect(await state('nobody-here', String(stored.turnId))).toMatchObject({
      statusCode: 404,
      body: { error: { code: 'unknown_user', field: 'user_id' } },
    });
    await resolveIdentity(db.pool, 'api', 'turns-other');
    expect(await state('turns-other', String(stored.turnId))).toMatchObject({
      statusCode: 404,
      body: { error: { code: 'unknown_turn', field: 'turn_id' } },
    });
  });

  it('a message with reply_to answers the question instead of starting a turn', async () => {
    const question = await askUser(db.pool, userId, { kind: 'one_time_code', question: 'Code?' });
    const [stored] = await run([
      { operation: 'receiveMessage', userId, message: '123456', options: { replyTo: question.id } },
    ]);
    expect(stored).toMatchObject({ kind: 'answer', questionId: question.id, questionKind: 'one_time_code' });
  });

  it('names the field of bad input, per item, and honours Continue On Fail', async () => {
    const error = await run([
      { operation: 'receiveMessage', userId, message: 'x', options: { metadata: '[1]' } },
    ]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as Error).message).toBe('metadata: must be a JSON object');
    const items = await run(
      [
        { operation: 'finishTurn', userId, turnId: 'one', reply: 'x' },
        { operation: 'finishTurn', userId, turnId: 1, reply: '' },
      ],
      { continueOnFail: true },
    );
    const [deadline] = await run([{ operation: 'awaitTurn', userId, turnId: 1, deadlineSeconds: -1 }], {
      continueOnFail: true,
    });
    expect(deadline).toEqual({
      error: 'deadlineSeconds: must be a number of seconds from 0 to 900',
      field: 'deadlineSeconds',
    });
    expect(items).toEqual([
      { error: 'turnId: must be a positive integer id', field: 'turnId' },
      { error: 'reply: must be a non-empty string', field: 'reply' },
    ]);
  });
});

describe('Assistant Turns: Attach File', () => {
  /** A 1x1 PNG, as the browser's screenshot step returns it (base64). */
  const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

  it("keeps a file with the turn; the answered turn's reply carries it", async () => {
    const [stored] = await run([{ operation: 'receiveMessage', userId, message: 'Show me my account', options: {} }]);
    const turnId = stored.turnId as number;
    const [attached] = await run([
      { operation: 'attachFile', userId, turnId, fileName: 'screenshot.png', mimeType: 'Image/PNG', data: PNG },
    ]);
    expect(attached).toEqual({ id: expect.any(Number), bytes: Buffer.from(PNG, 'base64').length });
    const rows = await db.pool.query(
      'SELECT file_name, mime_type, data FROM assistant.turn_attachments WHERE id = $1',
      [attached.id],
    );
    expect(rows.rows[0]).toMatchObject({ file_name: 'screenshot.png', mime_type: 'image/png' });
    expect((rows.rows[0].data as Buffer).toString('base64')).toBe(PNG);
    await run([{ operation: 'finishTurn', userId, turnId, reply: 'Here is your account.' }]);
    const [awaited] = await run([{ operation: 'awaitTurn', userId, turnId, deadlineSeconds: 0 }]);
    expect(awaited).toMatchObject({
      status: 'answered',
      attachments: [{ id: attached.id, fileName: 'screenshot.png', mimeType: 'image/png', data: PNG }],
    });
  });

  it("names the field of a bad file: data that is not base64, a bad name or type, another user's turn", async () => {
    const [stored] = await run([{ operation: 'receiveMessage', userId, message: 'Screenshot, please', options: {} }]);
    const turnId = stored.turnId as number;
    const other = (await resolveIdentity(db.pool, 'api', 'turns-node-other')).userId;
    const file = { operation: 'attachFile', userId, turnId, fileName: 'shot.png', mimeType: 'image/png', data: PNG };
    const error = await run([{ ...file, data: 'not base64!' }]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toBe('data: must be the file as base64');
    expect((error as NodeOperationError).description).toBe('Check the "data" parameter.');
    const items = await run(
      [
        { ...file, data: '' },
        { ...file, data: undefined },
        { ...file, fileName: '../etc/passwd' },
        { ...file, mimeType: 'png' },
        { ...file, userId: other },
        { ...file, data: `${PNG.slice(0, 40)}\n${PNG.slice(40)}` },
      ],
      { continueOnFail: true },
    );
    expect(items.slice(0, 5)).toEqual([
      { error: 'data: must be the file as base64', field: 'data' },
      { error: 'data: must be the file as base64', field: 'data' },
      { error: 'fileName: letters, digits, ".", "_" and "-" only', field: 'fileName' },
      { error: 'mimeType: must be a media type such as image/png', field: 'mimeType' },
      { error: 'turnId: no such turn for this user', field: 'turnId' },
    ]);
    expect(items[5]).toMatchObject({ bytes: Buffer.from(PNG, 'base64').length });
  });
});
