// The Assistant Experts node on a migrated Postgres 17, through the shared fake IExecuteFunctions: an expert's
// settings (the chat model setting until it has its own model), setting and resetting its model, the catalogue
// listed, installing on the operator's yes and removing through a loopback n8n public API, bad input named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  approvalQuestion,
  askUser,
  OPERATOR_API_USER_ID,
  recordAnswer,
  resolveIdentity,
  updateInstanceSettings,
} from 'assistant-core';

import { startN8nPublicApiFake, type N8nPublicApiFake } from '../../fakes/n8n-public-api';
import { AssistantExperts } from '../../../nodes/AssistantExperts/AssistantExperts.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;
let n8n: N8nPublicApiFake;
let operator: string;
const API_KEY = 'node-test-n8n-api-key';

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  await updateInstanceSettings(db.pool, { chatModel: 'node-main-model' });
  const agent = JSON.parse(readFileSync(path.join(__dirname, '../../../workflows/assistant-agent.json'), 'utf8'));
  n8n = await startN8nPublicApiFake(API_KEY, [{ ...agent, active: true, tags: [] }]);
  operator = (await resolveIdentity(db.pool, 'api', OPERATOR_API_USER_ID)).userId;
});
afterAll(async () => {
  await n8n?.close();
  await db?.stop();
});

async function run(parameters: Parameters[], options: { continueOnFail?: boolean; apiKey?: string | null } = {}) {
  const apiKey = options.apiKey === undefined ? API_KEY : options.apiKey;
  const [output] = await runNode(new AssistantExperts(), {
    parameters,
    credentials: {
      postgres: db.credential,
      ...(apiKey === null ? {} : { n8nApi: { apiKey, baseUrl: n8n.baseUrl } }),
    },
    continueOnFail: options.continueOnFail,
  });
  return output.map((item) => item.json);
}

describe('Assistant Experts operations', () => {
  it('gives the model an expert runs with, its own once set, the setting again with "default"', async () => {
    // The run's model names the expert as its caller, for the model gateway (docs/MODELS.md).
    expect(await run([{ operation: 'expertSettings', expertId: 'analyst' }])).toEqual([
      { id: 'analyst', model: 'node-main-model#job=expert%3Aanalyst', ownModel: false, modelTimeoutSeconds: 300 },
    ]);
    expect(await run([{ operation: 'setExpertModel', expertId: 'analyst', model: 'analyst-model' }])).toEqual([
      { id: 'analyst', model: 'analyst-model', ownModel: true, modelTimeoutSeconds: 300 },
    ]);
    expect(await run([{ operation: 'setExpertModel', expertId: 'analyst', model: 'default' }])).toEqual([
      { id: 'analyst', model: 'node-main-model', ownModel: false, modelTimeoutSeconds: 300 },
    ]);
  });

  it('names bad input per item with Continue On Fail', async () => {
    const output = await run(
      [
        { operation: 'expertSettings', expertId: 'astrologer' },
        { operation: 'expertSettings', expertId: 'Bad Id' },
      ],
      { continueOnFail: true },
    );
    expect(output).toEqual([
      { error: 'expertId: no expert "astrologer" is installed', field: 'expertId' },
      { error: 'expertId: must be an expert id, e.g. researcher', field: 'expertId' },
    ]);
  });

  it("lists the installed experts and the catalogue, and finds a shipped expert's workflow", async () => {
    const [listing] = await run([{ operation: 'listExperts' }]);
    expect((listing.installed as Array<{ id: string }>).map((expert) => expert.id)).toEqual([
      'analyst',
      'planner',
      'researcher',
    ]);
    expect((listing.available as unknown[]).length).toBeGreaterThanOrEqual(12);
    expect(await run([{ operation: 'expertWorkflow', expertId: 'planner' }])).toEqual([
      { expertId: 'planner', workflowId: 'asstExpertPlannr' },
    ]);
  });

  it("installs on the operator's yes through the n8n API credential, and removes", async () => {
    const [asked] = await run([{ operation: 'approvalQuestion', userId: operator, expertId: 'gift-ideas' }]);
    expect(asked.question).toContain('(gift-ideas)');
    const question = await askUser(db.pool, operator, { kind: 'approval', question: asked.question });
    await recordAnswer(db.pool, question.id, 'yes', 0);
    const install = { operation: 'installExpert', expertId: 'gift-ideas', questionId: question.id, answer: 'yes' };
    const [installed] = await run([install]);
    expect(installed).toMatchObject({ expertId: 'gift-ideas', installed: true });
    expect(n8n.workflows.get(String(installed.workflowId))?.active).toBe(true);
    expect(await run([{ operation: 'expertWorkflow', expertId: 'gift-ideas' }])).toEqual([
      { expertId: 'gift-ideas', workflowId: installed.workflowId },
    ]);
    expect(await run([{ operation: 'removeExpert', userId: operator, expertId: 'gift-ideas' }])).toEqual([
      { expertId: 'gift-ideas', removed: true, result: 'Removed the expert "gift-ideas" and its workflow.' },
    ]);
    expect(n8n.workflows.has(String(installed.workflowId))).toBe(false);
  });

  it('says which credential is missing or wrong, per item with Continue On Fail', async () => {
    const question = await askUser(db.pool, operator, {
      kind: 'approval',
      question: (await approvalQuestion(db.pool, { userId: operator, expertId: 'gift-ideas' })).question,
    });
    await recordAnswer(db.pool, question.id, 'yes', 0);
    const install = { operation: 'installExpert', expertId: 'gift-ideas', questionId: question.id, answer: 'yes' };
    const [missing] = await run([install], { continueOnFail: true, apiKey: null });
    expect(missing.error).toMatch(/no "n8n API" credential is set on this node/);
    const [wrong] = await run([install], { continueOnFail: true, apiKey: 'wrong' });
    expect(wrong.error).toMatch(/n8n answered 401 \(the API key of the "n8n API" credential is wrong or revoked\)/);
    expect(
      await run([{ operation: 'removeExpert', userId: 'not-a-user', expertId: 'gift-ideas' }], {
        continueOnFail: true,
      }),
    ).toEqual([{ error: expect.stringMatching(/^userId: /), field: 'userId' }]);
  });
});
