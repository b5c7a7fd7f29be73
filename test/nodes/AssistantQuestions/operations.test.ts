// The Assistant Questions node's operations on a migrated Postgres 17 through the shared fake IExecuteFunctions: a
// question asked for a stored turn, the channel's message id remembered, the answer (sent with reply_to, as the
// webhook stores it) waited for and taken, or left for the browser step that types a one-time code; an expired
// question said so. Bad input names its field.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askUser, receiveMessage, resolveIdentity, updateInstanceSettings } from 'assistant-core';

import { AssistantQuestions } from '../../../nodes/AssistantQuestions/AssistantQuestions.node';
import { operations } from '../../../nodes/AssistantQuestions/v1/actions/router';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let userId: string;
let otherUserId: string;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'questions-node')).userId;
  otherUserId = (await resolveIdentity(db.pool, 'api', 'questions-node-other')).userId;
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean; cancelSignal?: AbortSignal } = {}) {
  const [output] = await runNode(new AssistantQuestions(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output.map((item) => item.json);
}

/** A stored turn of `user`, as Store Message makes it. */
async function storedTurn(user = userId): Promise<number> {
  const received = await receiveMessage(db.pool, user, { message: 'Sign me in to the bank' });
  return received.turnId;
}

/** The user's answer, as the webhook stores a message with reply_to. */
async function answer(questionId: string, message: string) {
  const received = await receiveMessage(db.pool, userId, { message, replyTo: questionId });
  expect(received).toMatchObject({ kind: 'answer', questionId });
}

async function storedAnswer(questionId: string): Promise<string | null> {
  const rows = await db.pool.query('SELECT answer FROM assistant.pending_questions WHERE id = $1', [questionId]);
  return rows.rows[0].answer as string | null;
}

describe('Assistant Questions description', () => {
  it('needs the postgres credential; every operation has an action and a module', () => {
    const { description } = nodeVersion(new AssistantQuestions());
    expect(description.credentials).toEqual([{ name: 'postgres', required: true }]);
    expect(description.icon).toBe('file:assistantQuestions.svg');
    const operation = description.properties.find((p) => p.name === 'operation')!;
    const options = operation.options as { value: string; action?: string }[];
    for (const option of options) expect(option.action).toBeTruthy();
    expect(options.map((option) => option.value).sort()).toEqual(Object.keys(operations).sort());
  });
});

describe('Assistant Questions operations', () => {
  it('asks a one-time code question for a stored turn, expiring after the default 5 minutes', async () => {
    const turnId = await storedTurn();
    const before = Date.now();
    const [asked] = await run([
      { operation: 'ask', userId, turnId, kind: 'one_time_code', question: 'The code from your app?', attempt: 2 },
    ]);
    expect(asked).toMatchObject({
      userId,
      turnId,
      kind: 'one_time_code',
      question: 'The code from your app?',
      attempt: 2,
      channelMessageId: null,
      answeredAt: null,
    });
    expect(asked.id).toMatch(/^[0-9a-f-]{36}$/);
    const created = new Date(asked.createdAt as string).getTime();
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(asked.expiresAt as string).getTime() - created).toBe(300_000);
    const [outsideRun] = await run([{ operation: 'ask', userId, turnId: 0, question: 'Anything else?' }]);
    expect(outsideRun).toMatchObject({ kind: 'question', turnId: null, attempt: 1 });
  });

  it("remembers the channel's message id, so a reply to that message answers the question", async () => {
    const [asked] = await run([{ operation: 'ask', userId, kind: 'approval', question: 'Pay 10 EUR?' }]);
    const [remembered] = await run([{ operation: 'setMessageId', questionId: asked.id, messageId: 4711 }]);
    expect(remembered).toEqual({ questionId: asked.id, remembered: true });
    const rows = await db.pool.query('SELECT channel_message_id FROM assistant.pending_questions WHERE id = $1', [
      asked.id,
    ]);
    expect(rows.rows[0].channel_message_id).toBe('4711');
    const received = await receiveMessage(db.pool, userId, {
      message: 'yes',
      channel: 'telegram',
      replyToMessageId: '4711',
    });
    expect(received).toMatchObject({ kind: 'answer', questionId: asked.id, questionKind: 'approval' });
    const [bad] = await run([{ operation: 'setMessageId', questionId: asked.id, messageId: '' }], {
      continueOnFail: true,
    });
    expect(bad).toEqual({
      error: 'channelMessageId: must be the message id the question was sent as',
      field: 'channelMessageId',
    });
  });

  it('waits for an answer and takes it: the answer comes back once', async () => {
    const [asked] = await run([{ operation: 'ask', userId, question: 'Which day suits you?' }]);
    await answer(asked.id as string, 'Tuesday, please');
    const [waited] = await run([{ operation: 'waitForAnswer', userId, questionId: asked.id, takeAnswer: true }]);
    expect(waited).toEqual({
      questionId: asked.id,
      status: 'answered',
      answer: 'Tuesday, please',
      result: 'The user answered: Tuesday, please',
    });
    expect(await storedAnswer(asked.id as string)).toBeNull();
  });

  it('without taking the answer, says it came and leaves it for the step that takes it', async () => {
    const [asked] = await run([{ operation: 'ask', userId, kind: 'one_time_code', question: 'Code?' }]);
    await answer(asked.id as string, '481 516');
    const [waited] = await run([{ operation: 'waitForAnswer', userId, questionId: asked.id, takeAnswer: false }]);
    // toEqual: nothing else in the item, so the code is not in it.
    expect(waited).toEqual({ questionId: asked.id, status: 'answered', result: 'The user answered.' });
    expect(await storedAnswer(asked.id as string)).toBe('481 516');
    const [taken] = await run([{ operation: 'waitForAnswer', userId, questionId: asked.id }]);
    expect(taken).toMatchObject({ status: 'answered', answer: '481 516' });
    expect(await storedAnswer(asked.id as string)).toBeNull();
  });

  it('reports an expired question with a sentence to pass on', async () => {
    const expired = await askUser(db.pool, userId, {
      question: 'Still there?',
      expiresInSeconds: 5,
      now: new Date(Date.now() - 60_000),
    });
    for (const takeAnswer of [true, false]) {
      const [waited] = await run([{ operation: 'waitForAnswer', userId, questionId: expired.id, takeAnswer }]);
      expect(waited).toEqual({
        questionId: expired.id,
        status: 'expired',
        result:
          'The user did not answer in time; the question expired. Say so, and ask again later if it still matters.',
      });
    }
  });

  it("stops waiting at the run's deadline and withdraws the question: a late answer is refused as expired", async () => {
    const asked = await askUser(db.pool, userId, { question: 'Which account?' });
    const deadline = new Date(Date.now() + 400).toISOString();
    const started = Date.now();
    const [waited] = await run([{ operation: 'waitForAnswer', userId, questionId: asked.id, deadline }]);
    expect(Date.now() - started).toBeLessThan(10_000); // not the question's 5 minutes
    expect(waited).toEqual({
      questionId: asked.id,
      status: 'out_of_time',
      result: `Stopped waiting for the user's answer: the run's deadline (${deadline}) passed. Say so briefly.`,
    });
    await expect(receiveMessage(db.pool, userId, { message: 'Savings', replyTo: asked.id })).rejects.toThrow(/expired/);
  });

  it('stops waiting when n8n stops the execution', async () => {
    const asked = await askUser(db.pool, userId, { question: 'Which card?' });
    const execution = new AbortController();
    setTimeout(() => execution.abort(), 300);
    const [waited] = await run([{ operation: 'waitForAnswer', userId, questionId: asked.id }], {
      cancelSignal: execution.signal,
    });
    expect(waited).toMatchObject({ status: 'out_of_time', result: expect.stringMatching(/the run was stopped/) });
  });

  it('names the field of bad input, per item, and honours Continue On Fail', async () => {
    const othersTurn = await storedTurn(otherUserId);
    const items = await run(
      [
        { operation: 'ask', userId, kind: 'sms', question: 'Code?' },
        { operation: 'ask', userId, kind: 'question', question: '  ' },
        { operation: 'ask', userId, turnId: othersTurn, question: 'Code?' },
        { operation: 'ask', userId, turnId: -3, question: 'Code?' },
        { operation: 'ask', userId: 'nobody', question: 'Code?' },
        { operation: 'ask', userId, question: 'Fine?' },
      ],
      { continueOnFail: true },
    );
    expect(items.slice(0, 5)).toEqual([
      { error: 'kind: must be one of one_time_code, approval, question', field: 'kind' },
      { error: 'question: must be a non-empty string', field: 'question' },
      { error: 'turnId: no such turn for this user', field: 'turnId' },
      { error: `turnId: must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`, field: 'turnId' },
      { error: 'userId: must be the user id (a UUID) returned by Resolve Identity', field: 'userId' },
    ]);
    expect(items[5]).toMatchObject({ kind: 'question', question: 'Fine?' });
    const error = await run([{ operation: 'waitForAnswer', userId, questionId: 'not-a-uuid' }]).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toBe(
      'questionId: must be the id of a question the assistant asked (a UUID)',
    );
    expect((error as NodeOperationError).description).toBe('Check the "questionId" parameter.');
    const [othersQuestion] = await run([{ operation: 'waitForAnswer', userId: otherUserId, questionId: items[5].id }], {
      continueOnFail: true,
    });
    expect(othersQuestion).toEqual({ error: 'questionId: no such question for this user', field: 'questionId' });
  });
});

describe('Assistant Questions approval gate operations', () => {
  it('decides, asks and settles a call, passing the call’s inputs on with the decision', async () => {
    const owner = (await resolveIdentity(db.pool, 'api', 'owner')).userId;
    const inputs = { user_id: owner, name: 'city_weather', deadline: '2099-01-01T00:00:00Z' };
    const [free] = await run([
      { operation: 'decideApproval', userId, tool: 'create_task', toolInputs: JSON.stringify({ title: 'x' }) },
    ]);
    expect(free).toEqual({ title: 'x', approval: 'granted', approval_result: 'create_task needs no approval' });
    const [decided] = await run([
      { operation: 'decideApproval', userId: owner, tool: 'delete_tool', toolInputs: inputs },
    ]);
    expect(decided).toMatchObject({
      ...inputs,
      approval: 'ask',
      question: expect.stringMatching(/\[delete_tool [0-9a-f]{12}\]$/),
    });
    const asked = await askUser(db.pool, owner, { kind: 'approval', question: decided.question as string });
    await receiveMessage(db.pool, owner, { message: 'yes', replyTo: asked.id });
    const [settled] = await run([
      {
        operation: 'settleApproval',
        userId: owner,
        tool: 'delete_tool',
        toolInputs: inputs,
        questionId: asked.id,
        answerStatus: 'answered',
        answer: 'yes',
      },
    ]);
    expect(settled).toEqual({
      ...inputs,
      approval: 'granted',
      approval_result: 'delete_tool was approved by the user',
    });
  });

  it('weighs the Judge’s answer under the judge rule: below the threshold it runs, else it asks', async () => {
    await updateInstanceSettings(db.pool, { toolApprovals: { delete_task: 'judge' }, approvalJudgeThreshold: 0.5 });
    try {
      const inputs = JSON.stringify({ task_id: 9 });
      const [decided] = await run([{ operation: 'decideApproval', userId, tool: 'delete_task', toolInputs: inputs }]);
      expect(decided).toMatchObject({
        task_id: 9,
        approval: 'judge',
        judge_state: expect.stringContaining('task_id: 9'),
      });
      const weigh = (probability: string, judgeError = '') => ({
        operation: 'weighApproval',
        userId,
        tool: 'delete_task',
        toolInputs: inputs,
        probability,
        judgeError,
      });
      const [low, high, failed] = await run([weigh('0.1'), weigh('0.9'), weigh('', 'timed out')]);
      expect(low).toEqual({
        task_id: 9,
        approval: 'granted',
        approval_result: 'delete_task runs: the Judge saw no need to ask (p(ask) 0.10, threshold 0.50)',
      });
      expect(high).toMatchObject({ approval: 'ask', question: expect.stringMatching(/^May I /) });
      expect(failed).toMatchObject({
        approval: 'ask',
        question: expect.stringMatching(/^The Judge could not weigh this \(timed out\), so I ask\. May I /),
      });
    } finally {
      await updateInstanceSettings(db.pool, { toolApprovals: { delete_task: 'default' } });
    }
  });

  it('names bad tool inputs and an unknown tool, and honours Continue On Fail', async () => {
    const items = await run(
      [
        { operation: 'decideApproval', userId, tool: 'create_task', toolInputs: '[1, 2]' },
        { operation: 'decideApproval', userId, tool: 'drop_everything', toolInputs: '{}' },
      ],
      { continueOnFail: true },
    );
    expect(items[0]).toMatchObject({ error: "Tool Inputs must be the tool workflow's inputs as an object" });
    expect(items[1]).toMatchObject({ field: 'tool' });
  });
});
