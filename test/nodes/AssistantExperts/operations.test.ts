// The Assistant Experts node on a migrated Postgres 17, through the shared fake IExecuteFunctions: an expert's
// settings (the chat model setting until it has its own model), setting and resetting its model, bad input named.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateInstanceSettings } from 'assistant-core';

import { AssistantExperts } from '../../../nodes/AssistantExperts/AssistantExperts.node';
import { runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';

let db: NodeDatabase;

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  await updateInstanceSettings(db.pool, { chatModel: 'node-main-model' });
});
afterAll(async () => db?.stop());

async function run(parameters: Parameters[], options: { continueOnFail?: boolean } = {}) {
  const [output] = await runNode(new AssistantExperts(), {
    parameters,
    credentials: { postgres: db.credential },
    ...options,
  });
  return output.map((item) => item.json);
}

describe('Assistant Experts operations', () => {
  it('gives the model an expert runs with, its own once set, the setting again with "default"', async () => {
    expect(await run([{ operation: 'expertSettings', expertId: 'analyst' }])).toEqual([
      { id: 'analyst', model: 'node-main-model', ownModel: false },
    ]);
    expect(await run([{ operation: 'setExpertModel', expertId: 'analyst', model: 'analyst-model' }])).toEqual([
      { id: 'analyst', model: 'analyst-model', ownModel: true },
    ]);
    expect(await run([{ operation: 'setExpertModel', expertId: 'analyst', model: 'default' }])).toEqual([
      { id: 'analyst', model: 'node-main-model', ownModel: false },
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
});
