// The Assistant Context node's operations on a fresh Postgres 17 (the node creates the schema itself on first
// use), driven through the shared fake IExecuteFunctions.
import { NodeOperationError } from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askUser, receiveMessage, remember } from 'assistant-core';

import { AssistantContext } from '../../../nodes/AssistantContext/AssistantContext.node';
import { jsonObject } from '../../../nodes/AssistantContext/v1/helpers/jsonObject';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;

beforeAll(async () => {
  db = await startNodeDatabase();
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantContext(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output;
}

describe('Assistant Context description', () => {
  it('is a tool on the postgres credential, every operation with an action', () => {
    const { description } = nodeVersion(new AssistantContext());
    expect(description.usableAsTool).toBe(true);
    expect(description.credentials).toEqual([
      { name: 'postgres', required: true },
      { name: 'n8nApi', required: false, displayOptions: { show: { operation: ['purgeExecutions'] } } },
      { name: 'assistantEmbeddingsApi', required: false, displayOptions: { show: { operation: ['loadContext'] } } },
    ]);
    expect(description.icon).toBe('file:assistantContext.svg');
    const operation = description.properties.find((p) => p.name === 'operation')!;
    for (const option of operation.options as { action?: string }[]) expect(option.action).toBeTruthy();
  });
});

describe('jsonObject', () => {
  it('takes an object or JSON text of one, empty as undefined, and names the field otherwise', () => {
    expect(jsonObject('{"via":"test"}', 'metadata')).toEqual({ via: 'test' });
    expect(jsonObject({ a: 1 }, 'metadata')).toEqual({ a: 1 });
    expect(jsonObject('', 'metadata')).toBeUndefined();
    for (const bad of ['[1]', '{oops', 42]) expect(() => jsonObject(bad, 'metadata')).toThrow(/^metadata: /);
  });
});

describe('Assistant Context operations', () => {
  it('resolve → store a turn → load the context with memories, the way the agent workflow uses them', async () => {
    const [resolved] = await run([{ operation: 'resolveIdentity', channel: 'api', externalId: 'node-user' }]);
    const userId = resolved.json.userId as string;
    expect(resolved.json).toMatchObject({ identity: 'api:node-user', created: true });
    expect(resolved.pairedItem).toEqual({ item: 0 });
    await remember(db.pool, userId, { content: 'Stefan Huber runs the Vienna office', people: 'Stefan Huber' });

    const turn = {
      userMessage: 'Costs "$1" 😀',
      assistantReply: 'Noted.',
      turnChannel: 'api',
      metadata: '{"via":"test"}',
    };
    await run([{ operation: 'storeTurn', userId, sessionId: 's', ...turn }]);
    const [context] = await run([
      { operation: 'loadContext', userId, sessionId: 's', message: 'Stefan?', tokenBudget: 2000, memoryLimit: 8 },
    ]);
    expect(context.json.messages).toEqual([
      { role: 'user', content: 'Costs "$1" 😀' },
      { role: 'assistant', content: 'Noted.' },
    ]);
    expect(context.json.contextBlock).toContain('Stefan Huber runs the Vienna office');
    // The Chat Model's timeout (its `options.timeout` reads it): the setting's default, 300 s.
    expect(context.json.modelTimeoutSeconds).toBe(300);
  });

  it('owner check and settings through the node', async () => {
    const instanceSettings = {
      ownerTelegramChatId: '4242',
      assistantName: 'Ada',
      chatModel: 'llama3.1',
      modelTimeoutSeconds: 450,
      replyDeadlineSeconds: 700,
    };
    const [instance] = await run([{ operation: 'updateInstanceSettings', instanceSettings }]);
    expect(instance.json).toMatchObject({
      ownerTelegramChatId: '4242',
      chatModel: 'llama3.1',
      modelTimeoutSeconds: 450,
      replyDeadlineSeconds: 700,
    });
    const checks = await run([
      { operation: 'checkTelegramChat', chatId: '4242' },
      { operation: 'checkTelegramChat', chatId: '9999' },
    ]);
    expect(checks.map((c) => c.json)).toEqual([
      { chatId: '4242', allowed: true },
      { chatId: '9999', allowed: false },
    ]);
    const [resolved] = await run([{ operation: 'resolveIdentity', channel: 'telegram', externalId: '4242' }]);
    const settings = { timeZone: 'Europe/Vienna' };
    const [updated] = await run([{ operation: 'updateSettings', userId: resolved.json.userId, settings }]);
    expect(updated.json).toMatchObject({ assistantName: 'Ada', timeZone: 'Europe/Vienna' });
  });

  it('bad metadata fails naming the field; with continueOnFail it is an {error, field} item', async () => {
    const [resolved] = await run([{ operation: 'resolveIdentity', channel: 'api', externalId: 'bad-metadata' }]);
    const turn = { operation: 'storeTurn', userId: resolved.json.userId, userMessage: 'x', metadata: '[1]' };
    const error = await run([turn]).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toBe('metadata: must be a JSON object');
    expect((error as NodeOperationError).description).toBe('Check the "metadata" parameter.');
    const [item] = await run([turn], { continueOnFail: true });
    expect(item.json).toEqual({ error: 'metadata: must be a JSON object', field: 'metadata' });
  });
});

describe('Assistant Context router', () => {
  const run1 = async (parameters: Parameters) => (await run([parameters]))[0].json;

  it('reaches every operation through the router', async () => {
    const resolved = await run1({ operation: 'resolveIdentity', channel: 'api', externalId: 'router' });
    expect(resolved).toMatchObject({ identity: 'api:router', created: true });
    const userId = resolved.userId;
    const linked = await run1({ operation: 'linkIdentity', userId, channel: 'telegram', externalId: '77' });
    expect(linked).toEqual({ userId, identity: 'telegram:77' });
    const instanceSettings = { ownerTelegramChatId: '77' };
    expect(await run1({ operation: 'updateInstanceSettings', instanceSettings })).toMatchObject(instanceSettings);
    expect(await run1({ operation: 'getInstanceSettings' })).toMatchObject(instanceSettings);
    expect(await run1({ operation: 'checkTelegramChat', chatId: '77' })).toEqual({ chatId: '77', allowed: true });
    const settings = { assistantName: 'Ada' };
    expect(await run1({ operation: 'updateSettings', userId, settings })).toMatchObject(settings);
    expect(await run1({ operation: 'getSettings', userId })).toMatchObject(settings);
    const turn = { sessionId: 's', userMessage: 'Hi', assistantReply: 'Hello', turnChannel: 'api', metadata: '{}' };
    expect(await run1({ operation: 'storeTurn', userId, ...turn })).toMatchObject({ sessionId: 's' });
    expect(await run1({ operation: 'loadContext', userId, sessionId: 's', message: 'Hi' })).toMatchObject({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
    });
    expect(await run1({ operation: 'spendingReport', userId, period: 'today' })).toMatchObject({ period: 'today' });
    const { question } = await run1({ operation: 'forgetQuestion' });
    expect(question).toMatch(/^Forget everything I keep about you: /);
    // Forget Everything forgets only on an answered forget question of this user: without one it names the field.
    const refused = await run([{ operation: 'forgetEverything', userId, questionId: '', answer: 'yes' }], {
      continueOnFail: true,
    });
    expect(refused[0].json).toEqual({ error: 'questionId: must be a question id', field: 'questionId' });
    const asked = await askUser(db.pool, userId, { kind: 'approval', question: question as string });
    await receiveMessage(db.pool, userId, { message: 'no', replyTo: asked.id });
    expect(
      await run1({
        operation: 'forgetEverything',
        userId,
        questionId: asked.id,
        answerStatus: 'answered',
        answer: 'no',
      }),
    ).toEqual({ forgotten: false, result: 'Nothing was forgotten: the user did not say yes. Everything is kept.' });
  });
});

describe('Assistant Context spending report', () => {
  it("reports the user's model costs of the period, and a bad period names the field and the item", async () => {
    const [resolved] = await run([{ operation: 'resolveIdentity', channel: 'api', externalId: 'spender' }]);
    const userId = resolved.json.userId as string;
    await db.pool.query(
      `INSERT INTO assistant.model_calls (upstream, route, job, user_id, provider, model, prompt_tokens, output_tokens,
         cached_tokens, latency_ms, status, outcome, cost_micros, priced_by)
       VALUES ('chat', '/v1/chat/completions', 'agent', $1, 'openai', 'gpt-4o-mini', 1200, 300, 0, 40, 200, 'ok',
         2500, 'table 2026-11-01')`,
      [userId],
    );
    const [report] = await run([{ operation: 'spendingReport', userId, period: 'week' }]);
    expect(report.json).toMatchObject({
      period: 'week',
      covers: 'user',
      totalUsd: 0.0025,
      calls: 1,
      tokens: { prompt: 1200, output: 300, cached: 0 },
      byJob: [{ job: 'agent', usd: 0.0025, calls: 1 }],
    });
    expect(report.json.text).toContain('your calls: $0.0025 on 1 model call.');

    const bad = [
      { operation: 'spendingReport', userId, period: 'week' },
      { operation: 'spendingReport', userId, period: 'year' },
    ];
    const error = await run(bad).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NodeOperationError);
    expect((error as NodeOperationError).message).toBe('period: must be one of today, week, month');
    expect((error as NodeOperationError).context.itemIndex).toBe(1);
    const items = await run(bad, { continueOnFail: true });
    expect(items[0].json).toMatchObject({ period: 'week', calls: 1 });
    expect(items[1].json).toEqual({ error: 'period: must be one of today, week, month', field: 'period' });
  });
});
