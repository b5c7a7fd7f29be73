// The experts' registry on a real Postgres 17: the three shipped ones, each running on the chat model setting
// until given its own model, and back with "default"; bad input named.
import { describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { useAssistantDatabase } from '../database';
import { expectFieldError } from '../helpers';

const db = useAssistantDatabase();

describe('experts', () => {
  it('ships the researcher, the planner and the analyst, each with its workflow', async () => {
    expect(assistant.SHIPPED_EXPERTS.map((expert) => expert.id)).toEqual(['researcher', 'planner', 'analyst']);
    const rows = await db.pool.query(`SELECT id FROM assistant.experts WHERE source = 'shipped' ORDER BY id`);
    expect(rows.rows.map((row) => row.id)).toEqual(['analyst', 'planner', 'researcher']);
  });

  it('runs an expert on the chat model setting until it gets its own, and back with "default"', async () => {
    await assistant.updateInstanceSettings(db.pool, { chatModel: 'main-model' });
    // The run's model names the expert as the caller, for the model gateway's ledger (docs/MODELS.md).
    expect(await assistant.expertSettings(db.pool, 'planner')).toEqual({
      id: 'planner',
      model: 'main-model#job=expert%3Aplanner',
      ownModel: false,
      modelTimeoutSeconds: 300,
    });
    expect(await assistant.setExpertModel(db.pool, ' Planner ', 'vendor/planner-model:latest')).toEqual({
      id: 'planner',
      model: 'vendor/planner-model:latest',
      ownModel: true,
      modelTimeoutSeconds: 300,
    });
    expect(await assistant.expertSettings(db.pool, 'researcher')).toMatchObject({
      model: 'main-model#job=expert%3Aresearcher',
    });
    expect(await assistant.setExpertModel(db.pool, 'planner', 'default')).toMatchObject({
      model: 'main-model',
      ownModel: false,
    });
  });

  it('names bad input', async () => {
    await expectFieldError(() => assistant.expertSettings(db.pool, 'Not An Id!'), 'expertId');
    await expectFieldError(() => assistant.expertSettings(db.pool, 'astrologer'), 'expertId', 'notFound');
    await expectFieldError(() => assistant.setExpertModel(db.pool, 'planner', 'two words'), 'model');
    await expectFieldError(() => assistant.setExpertModel(db.pool, 'astrologer', 'gpt-4o'), 'expertId', 'notFound');
  });
});
