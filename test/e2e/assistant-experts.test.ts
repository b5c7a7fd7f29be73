// The three shipped experts on the real n8n + Postgres 17, each end to end through the scripted fake model: the main
// agent delegates (ask_<expert>), the expert's own agent uses its tools, and its answer comes back into the reply.
// The Researcher searches and reads the loopback site; the Planner creates a task; the Analyst ranks a list with the
// Judge (the e2e judge server). An expert's own model reaches the fake provider, checked by the model name asked for.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listTasks, resolveIdentity, runMigrations, setExpertModel } from 'assistant-core';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { ZOO_FACT } from '../fakes/web-site';
import { e2eStack, type E2EStack } from './setup/harness';
import { postgresCredentialData } from './setup/postgres-credential';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';

const run = Math.random().toString(36).slice(2, 8);
const USER = `experts-${run}`;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let db: Pool;
let site: string;

const call = (name: string, args: Record<string, string>): ScriptStep => ({ tool_calls: [{ name, arguments: args }] });

/** The main agent delegates `task` (which carries the expert's marker) and relays the expert's answer. */
async function delegate(expert: string, task: string, expertSteps: ScriptStep[]) {
  const main = `[main-${expert}-${run}]`;
  const inner = `[${expert}-${run}]`;
  await llm.addScript(inner, expertSteps);
  await llm.addScript(main, [
    call(`ask_${expert}`, { task: `${task} ${inner}` }),
    { content: 'Main: {{last_tool_result}}' },
  ]);
  const response = await stack.webhook('agent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
    body: JSON.stringify({ message: `Please help ${main}`, user_id: USER }),
  });
  const body = (await response.json()) as { reply?: string };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return { reply: body.reply ?? '', main: await llm.requests(main), inner: await llm.requests(inner) };
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  site = stack.fakeUrls.E2E_WEB_SITE_URL;
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
  });
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: { data: postgresCredentialData(stack.postgresUrl) },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
});

afterAll(async () => {
  await setExpertModel(db, 'researcher', 'default').catch(() => undefined);
  await db?.end();
});

describe('shipped experts', () => {
  it('the Researcher searches, reads and answers with its source, on its own model', async () => {
    await setExpertModel(db, 'researcher', 'e2e-research-model');
    const { reply, main, inner } = await delegate('researcher', 'When is the Riverside Zoo open?', [
      call('web_search', { query: 'riverside zoo opening hours', max_results: '' }),
      call('read_page', { url: `${site}/articles/zoo`, max_chars: '' }),
      { content: `Researcher: {{last_tool_result}} Source: ${site}/articles/zoo` },
    ]);
    expect(reply).toContain(ZOO_FACT);
    expect(reply).toContain(`Source: ${site}/articles/zoo`);
    // The expert's own agent ran three rounds on its own model; the main agent kept the chat model setting.
    expect(inner.map((request) => request.step)).toEqual([0, 1, 2]);
    expect(new Set(inner.map((request) => request.body.model))).toEqual(new Set(['e2e-research-model']));
    expect(main[0].body.model).not.toBe('e2e-research-model');
    expect(inner[0].body.tools?.map((tool) => tool.function.name).sort()).toEqual(['read_page', 'web_search']);
  });

  it('the Planner creates the task the main agent asked for', async () => {
    const title = `Book the dentist ${run}`;
    const { reply, inner } = await delegate('planner', `Plan: ${title}`, [
      call('create_task', { title, due_at: '', priority: 'high' }),
      { content: 'Planner: {{last_tool_result}}' },
    ]);
    expect(reply).toContain('Planner:');
    expect(inner[0].body.tools?.map((tool) => tool.function.name)).toContain('create_task');
    expect(inner[0].body.tools?.map((tool) => tool.function.name)).not.toContain('web_search');
    const userId = (await resolveIdentity(db, 'api', USER)).userId;
    const tasks = await listTasks(db, userId, {});
    expect(tasks.find((task) => task.title === title)).toMatchObject({ priority: 'high' });
  });

  it('the Analyst ranks a list with the Judge, each item with its probability', async () => {
    const items = ['A quiet cabin by the lake', 'A loud party hostel', 'A silent monastery retreat'];
    const { reply, inner } = await delegate('analyst', `Rank these for a quiet weekend: ${items.join('; ')}`, [
      call('judge_list', { items: items.join('\n'), criterion: 'Is this a quiet place to stay?' }),
      { content: 'Analyst: {{last_tool_result}}' },
    ]);
    // What the Judge gave back to the Analyst: every item once, ranked by the probability of yes.
    const toolMessage = inner[1]?.body.messages?.find((message) => message.role === 'tool');
    const [{ ranked }] = JSON.parse(String(toolMessage?.content)) as [
      { ranked: Array<{ item: string; probability: number }> },
    ];
    expect(ranked.map((entry) => entry.item).sort()).toEqual([...items].sort());
    for (const entry of ranked) expect(entry.probability).toBeGreaterThan(0);
    for (const entry of ranked) expect(entry.probability).toBeLessThan(1);
    const probabilities = ranked.map((entry) => entry.probability);
    expect(probabilities).toEqual([...probabilities].sort((a, b) => b - a));
    expect(reply).toContain('Analyst:');
    expect(reply).toContain('ranked');
  });
});
