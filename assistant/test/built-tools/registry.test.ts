// Built tools from draft to live on a real Postgres 17, against a loopback server speaking n8n's public API: the
// draft is created inactive and tagged only for the operator and a URL the guard allows, with the credential found by
// name; a failed test, a no or no answer deletes it; a yes to its own question publishes it; run_tool's inputs are
// checked against the spec; disable and delete.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as assistant from '../../src';
import { startN8nPublicApiFake, type N8nPublicApiFake } from '../../../test/fakes/n8n-public-api';
import { useAssistantDatabase } from '../database';
import { createUser, expectFieldError } from '../helpers';
import { WEATHER_SPEC } from './fixtures';

const API_KEY = 'built-tools-test-key';
const db = useAssistantDatabase();
let n8n: N8nPublicApiFake;
let api: assistant.WorkflowApi;
let operator: string;
let stranger: string;
const checked: string[] = [];
const allowAll: assistant.UrlCheck = async (url) => {
  checked.push(url);
  return { allowed: true };
};

async function approval(name: string, answer: string) {
  const question = await assistant.askUser(db.pool, operator, {
    kind: 'approval',
    question: `Activate the built tool "${name}"?`,
  });
  await assistant.recordAnswer(db.pool, question.id, answer, 0);
  return question.id;
}

beforeAll(async () => {
  n8n = await startN8nPublicApiFake(
    API_KEY,
    [],
    [
      { id: 'credWeather1', name: 'Weather API', type: 'httpQueryAuth' },
      { id: 'credOpenAi01', name: 'Some OpenAI', type: 'openAiApi' },
    ],
  );
  api = assistant.publicWorkflowApi(n8n.baseUrl, API_KEY);
  operator = (await assistant.resolveIdentity(db.pool, 'api', assistant.OPERATOR_API_USER_ID)).userId;
  stranger = await createUser(db.pool, 'stranger');
});
afterAll(async () => {
  await n8n?.close();
});
beforeEach(async () => {
  await db.pool.query('DELETE FROM assistant.built_tools');
  n8n.workflows.clear();
  checked.length = 0;
});

describe('drafting', () => {
  it('creates the workflow inactive and tagged, with the credential by id, after the guard checked the sample URL', async () => {
    const draft = await assistant.draftTool(db.pool, api, allowAll, {
      userId: operator,
      spec: JSON.stringify(WEATHER_SPEC),
    });
    expect(checked).toEqual(['https://api.weather.example/v1/current?city=Paris&units=metric']);
    expect(draft.samples).toEqual({ city: 'Paris' });
    const stored = n8n.workflows.get(draft.workflowId)!;
    expect(stored).toMatchObject({ active: false, tags: [{ id: 'tagAssistant0001' }, { id: 'tagTool000000001' }] });
    expect(JSON.stringify(stored.nodes)).toContain('"httpQueryAuth":{"id":"credWeather1","name":"Weather API"}');
    expect(JSON.parse(draft.workflowJson).name).toBe('Assistant built tool: city_weather');
    // A second draft of the same name replaces the first.
    const again = await assistant.draftTool(db.pool, api, allowAll, { userId: operator, spec: WEATHER_SPEC });
    expect([...n8n.workflows.keys()]).toEqual([again.workflowId]);
  });

  it('refuses a stranger, a URL the guard refuses, an unknown or unusable credential, and a literal secret', async () => {
    await expectFieldError(
      () => assistant.draftTool(db.pool, api, allowAll, { userId: stranger, spec: WEATHER_SPEC }),
      'userId',
    );
    const refuse: assistant.UrlCheck = async () => ({ allowed: false, reason: '10.0.0.5 is a private address' });
    const guarded = assistant.draftTool(db.pool, api, refuse, {
      userId: operator,
      spec: { ...WEATHER_SPEC, url: 'http://10.0.0.5/weather?city={city}' },
    });
    await expect(guarded).rejects.toThrow('url: is refused by the outbound guard: 10.0.0.5 is a private address');
    await expectFieldError(
      () =>
        assistant.draftTool(db.pool, api, allowAll, {
          userId: operator,
          spec: { ...WEATHER_SPEC, credential: 'Nope' },
        }),
      'credential',
    );
    await expect(
      assistant.draftTool(db.pool, api, allowAll, {
        userId: operator,
        spec: { ...WEATHER_SPEC, credential: 'Some OpenAI' },
      }),
    ).rejects.toThrow(/credential: "Some OpenAI" is a openAiApi credential/);
    const secret = { ...WEATHER_SPEC, url: 'https://api.weather.example/current?city={city}&token=abcdef0123456789' };
    await expectFieldError(
      () => assistant.draftTool(db.pool, api, allowAll, { userId: operator, spec: secret }),
      'url',
    );
    await expectFieldError(
      () => assistant.draftTool(db.pool, api, allowAll, { userId: operator, spec: '{not json' }),
      'spec',
    );
    expect(n8n.workflows.size).toBe(0);
    expect((await db.pool.query('SELECT 1 FROM assistant.built_tools')).rowCount).toBe(0);
  });
});

describe('approval', () => {
  it("a failed test deletes the draft and gives n8n's message", async () => {
    const draft = await assistant.draftTool(db.pool, api, allowAll, { userId: operator, spec: WEATHER_SPEC });
    const result = await assistant.toolApprovalQuestion(db.pool, api, {
      name: 'city_weather',
      testOutput: '',
      testError: 'The resource you are requesting could not be found',
    });
    expect(result).toEqual({
      name: 'city_weather',
      asked: false,
      result:
        'The test execution of "city_weather" failed, so nothing was kept: The resource you are requesting could not be found',
    });
    expect(n8n.workflows.has(draft.workflowId)).toBe(false);
    expect(await assistant.listBuiltTools(db.pool)).toEqual([]);
  });

  it('asks with the test output; a no deletes the draft, a yes to its own question publishes it', async () => {
    await assistant.draftTool(db.pool, api, allowAll, { userId: operator, spec: WEATHER_SPEC });
    const asked = await assistant.toolApprovalQuestion(db.pool, api, {
      name: 'city_weather',
      testOutput: JSON.stringify({ temperature: '18.5', summary: 'light rain' }),
    });
    expect(asked.question).toBe(
      'Activate the built tool "city_weather"? Gets the current weather for a city. It calls GET ' +
        'https://api.weather.example/v1/current?city={city}&units=metric with the credential "Weather API". ' +
        'Test with city="Paris" gave: {"temperature":"18.5","summary":"light rain"} Answer yes or no.',
    );
    const no = await assistant.decideTool(db.pool, api, {
      name: 'city_weather',
      questionId: await approval('city_weather', 'no'),
      answer: 'no',
    });
    expect(no).toMatchObject({ active: false, result: expect.stringContaining('did not approve') });
    expect(n8n.workflows.size).toBe(0);

    const draft = await assistant.draftTool(db.pool, api, allowAll, { userId: operator, spec: WEATHER_SPEC });
    await expectFieldError(
      () =>
        assistant.decideTool(db.pool, api, {
          name: 'city_weather',
          questionId: '00000000-0000-4000-8000-000000000000',
          answer: 'yes',
        }),
      'questionId',
      'notFound',
    );
    const other = await approval('other_tool', 'yes');
    await expectFieldError(
      () => assistant.decideTool(db.pool, api, { name: 'city_weather', questionId: other, answer: 'yes' }),
      'questionId',
    );
    const yes = await assistant.decideTool(db.pool, api, {
      name: 'city_weather',
      questionId: await approval('city_weather', 'yes'),
      answer: 'yes',
    });
    expect(yes).toMatchObject({ active: true });
    expect(n8n.workflows.get(draft.workflowId)?.active).toBe(true);
    expect(await assistant.listBuiltTools(db.pool)).toEqual([
      {
        name: 'city_weather',
        purpose: 'Gets the current weather for a city.',
        status: 'active',
        inputs: [{ name: 'city', type: 'string', description: 'The city, e.g. Paris' }],
        calls: 'GET https://api.weather.example/v1/current?city={city}&units=metric with the credential "Weather API"',
      },
    ]);
  });

  it('no answer in time deletes the draft', async () => {
    await assistant.draftTool(db.pool, api, allowAll, { userId: operator, spec: WEATHER_SPEC });
    const expired = await assistant.decideTool(db.pool, api, {
      name: 'city_weather',
      questionId: '',
      answer: '',
      status: 'expired',
    });
    expect(expired).toMatchObject({ active: false, result: expect.stringContaining('did not answer in time') });
    expect(n8n.workflows.size).toBe(0);
  });
});

describe('running and managing', () => {
  async function liveTool() {
    const draft = await assistant.draftTool(db.pool, api, allowAll, {
      userId: operator,
      spec: {
        ...WEATHER_SPEC,
        inputs: [
          ...WEATHER_SPEC.inputs,
          { name: 'days', type: 'number', description: 'How many days', sample: 1 },
          { name: 'hourly', type: 'boolean', description: 'Hour by hour', sample: false },
        ],
      },
    });
    await assistant.toolApprovalQuestion(db.pool, api, { name: 'city_weather', testOutput: '{}' });
    await assistant.decideTool(db.pool, api, {
      name: 'city_weather',
      questionId: await approval('city_weather', 'yes'),
      answer: 'yes',
    });
    return draft.workflowId;
  }

  it("checks run_tool's input against the spec, converting types", async () => {
    const workflowId = await liveTool();
    expect(
      await assistant.toolCall(db.pool, {
        name: 'city_weather',
        input: '{"city": "Oslo", "days": "3", "hourly": "true"}',
      }),
    ).toEqual({
      _workflowId: workflowId,
      city: 'Oslo',
      days: 3,
      hourly: true,
    });
    await expectFieldError(
      () => assistant.toolCall(db.pool, { name: 'city_weather', input: { city: 'Oslo', days: 2 } }),
      'input.hourly',
    );
    await expectFieldError(
      () => assistant.toolCall(db.pool, { name: 'city_weather', input: { city: 'Oslo', days: 'x', hourly: true } }),
      'input.days',
    );
    await expectFieldError(
      () => assistant.toolCall(db.pool, { name: 'city_weather', input: { town: 'Oslo' } }),
      'input',
    );
    await expectFieldError(() => assistant.toolCall(db.pool, { name: 'city_weather', input: '[1' }), 'input');
    await expectFieldError(() => assistant.toolCall(db.pool, { name: 'no_such_tool', input: {} }), 'name', 'notFound');
  });

  it("disables and deletes at the operator's word only", async () => {
    const workflowId = await liveTool();
    await expectFieldError(
      () => assistant.disableBuiltTool(db.pool, api, { userId: stranger, name: 'city_weather' }),
      'userId',
    );
    expect(await assistant.disableBuiltTool(db.pool, api, { userId: operator, name: 'city_weather' })).toMatchObject({
      status: 'disabled',
    });
    expect(n8n.workflows.get(workflowId)?.active).toBe(false);
    await expectFieldError(() => assistant.toolCall(db.pool, { name: 'city_weather', input: {} }), 'name', 'notFound');
    await expectFieldError(
      () => assistant.deleteBuiltTool(db.pool, api, { userId: stranger, name: 'city_weather' }),
      'userId',
    );
    expect(await assistant.deleteBuiltTool(db.pool, api, { userId: operator, name: 'city_weather' })).toMatchObject({
      deleted: true,
    });
    expect(n8n.workflows.has(workflowId)).toBe(false);
    expect(await assistant.listBuiltTools(db.pool)).toEqual([]);
  });
});
