// The Assistant Turns node's operations on a fresh Postgres 17, through the shared fake IExecuteFunctions: store the
// message, wait, store the reply or mark the turn failed; limits and bad input name the field.
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

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
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
    expect(awaited).toMatchObject({ status: 'answered', reply: 'Hi!', deadlineSeconds: 120 });
  });

  it('wait for reply returns the turn still pending at its deadline; mark failed records the error', async () => {
    const [stored] = await run([{ operation: 'receiveMessage', userId, message: 'Slow', options: {} }]);
    await updateInstanceSettings(db.pool, { replyDeadlineSeconds: 1 });
    try {
      const [awaited] = await run([{ operation: 'awaitTurn', userId, turnId: stored.turnId }]);
      expect(awaited).toMatchObject({ status: 'pending', deadlineSeconds: 1 });
    } finally {
      await updateInstanceSettings(db.pool, { replyDeadlineSeconds: 120 });
    }
    const [failed] = await run([{ operation: 'failTurn', userId, turnId: stored.turnId, error: '504 timed out' }]);
    expect(failed).toMatchObject({ status: 'failed', error: '504 timed out' });
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
      error: 'deadlineSeconds: must be a number of seconds from 0 to 300',
      field: 'deadlineSeconds',
    });
    expect(items).toEqual([
      { error: 'turnId: must be a positive integer id', field: 'turnId' },
      { error: 'reply: must be a non-empty string', field: 'reply' },
    ]);
  });
});
