// The three shipped experts on the real n8n + Postgres 17, each end to end through the scripted fake model: the main
// agent delegates (ask_<expert>), the expert's own agent uses its tools, and its answer comes back into the reply.
// The Researcher searches and reads the loopback site; the Planner creates a task; the Analyst ranks a list with the
// Judge (the e2e judge server). An expert's own model reaches the fake provider, checked by the model name asked for.
// Catalogue experts: every entry's workflow is accepted and published by the real n8n; install_expert asks the
// operator (needs_input on the webhook) and a no installs nothing, a yes installs; the installed expert then runs
// through ask_expert on its own model, and remove_expert deletes it.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  listTasks,
  loadCatalogue,
  MAIN_AGENT_WORKFLOW_ID,
  OPERATOR_API_USER_ID,
  publicWorkflowApi,
  removeWorkflow,
  renderExpertWorkflow,
  resolveIdentity,
  runMigrations,
  setExpertModel,
  type WorkflowJson,
} from 'assistant-core';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { ZOO_FACT } from '../fakes/web-site';
import { e2eStack, type E2EStack } from './setup/harness';
import { configureAssistantCredentials, postToAgent } from './setup/assistant';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { callTool } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const USER = `experts-${run}`;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let db: Pool;
let site: string;

/** An expert's agent calls one of its own tools (an expert binds each tool by name, no routers). */
const call = (name: string, args: Record<string, string>): ScriptStep => ({ tool_calls: [{ name, arguments: args }] });

/** The main agent delegates `task` (which carries the expert's marker) and relays the expert's answer. */
async function delegate(expert: string, task: string, expertSteps: ScriptStep[]) {
  const main = `[main-${expert}-${run}]`;
  const inner = `[${expert}-${run}]`;
  await llm.addScript(inner, expertSteps);
  await llm.addScript(main, [
    callTool(`ask_${expert}`, { task: `${task} ${inner}` }),
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
  await configureAssistantCredentials(stack);
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
    // Through the model gateway, each round is in the ledger as the expert's call on its model.
    const ledger = await db.query(
      `SELECT count(*)::int AS calls FROM assistant.model_calls
        WHERE job = 'expert:researcher' AND model = 'e2e-research-model' AND outcome = 'ok'`,
    );
    expect(ledger.rows[0].calls).toBeGreaterThanOrEqual(3);
  });

  it('the Planner creates the task the main agent asked for', async () => {
    const title = `Book the dentist ${run}`;
    const { reply, inner } = await delegate('planner', `Plan: ${title}`, [
      call('create_task', { title, due: '', priority: 'high' }),
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

interface AgentAnswer {
  reply?: string;
  turn_id?: number;
  needs_input?: { id: string; question: string; expires_at: string };
}

async function post(body: Record<string, unknown>): Promise<AgentAnswer> {
  const answer = await postToAgent<AgentAnswer>(stack, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

describe('catalogue experts', () => {
  const EXPERT = 'gift-ideas';
  const registered = async () =>
    (await db.query(`SELECT workflow_id FROM assistant.experts WHERE id = $1`, [EXPERT])).rows as Array<{
      workflow_id: string;
    }>;
  const giftWorkflows = async () =>
    (await stack.api<{ data: Array<{ id: string; name: string; active: boolean }> }>('/workflows?limit=250')).data
      .filter((workflow) => workflow.name === 'Assistant expert: gift ideas (catalogue)')
      .map(({ id, name, active }) => ({ id, name, active }));

  it("every entry's workflow is accepted and published by the real n8n", async () => {
    const agent = await stack.api<WorkflowJson>(`/workflows/${MAIN_AGENT_WORKFLOW_ID}`);
    for (const entry of loadCatalogue()) {
      const workflow = renderExpertWorkflow(entry, agent);
      const created = await stack.api<{ id: string }>('/workflows', { method: 'POST', body: workflow });
      try {
        await stack.api(`/workflows/${created.id}/publish`, { method: 'POST', body: {} });
        const stored = await stack.api<WorkflowJson & { active: boolean }>(`/workflows/${created.id}`);
        expect(stored.active, entry.id).toBe(true);
        expect(stored.nodes.map((node) => node.name).sort()).toEqual(workflow.nodes.map((node) => node.name).sort());
      } finally {
        await removeWorkflow(publicWorkflowApi(`${stack.n8nUrl}/api/v1`, stack.apiKey), created.id);
      }
    }
  });

  it("installs only on the operator's yes, runs the installed expert on its own model, and removes it", async () => {
    await db.query(`DELETE FROM assistant.experts WHERE id = $1`, [EXPERT]);
    // A no: the question comes back as needs_input, the answer finishes the run, and nothing is installed.
    await llm.addScript(`[install-no-${run}]`, [
      callTool('install_expert', { expert_id: EXPERT }),
      { content: 'Main: {{last_tool_result}}' },
    ]);
    const asked = await post({ message: `Install gift ideas [install-no-${run}]`, user_id: OPERATOR_API_USER_ID });
    expect(asked.needs_input?.question).toMatch(/^Install the expert "Gift Ideas" \(gift-ideas\) from the catalogue\?/);
    const refused = await post({ message: 'No', user_id: OPERATOR_API_USER_ID, reply_to: asked.needs_input!.id });
    expect(refused.reply).toContain('Not installed: the operator did not approve');
    expect(await registered()).toEqual([]);
    expect(await giftWorkflows()).toEqual([]);

    // Someone else than the operator is refused before anyone is asked.
    await llm.addScript(`[install-other-${run}]`, [
      callTool('install_expert', { expert_id: EXPERT }),
      { content: 'Main: {{last_tool_result}}' },
    ]);
    const other = await post({ message: `Install gift ideas [install-other-${run}]`, user_id: USER });
    expect(other.needs_input).toBeUndefined();
    expect(other.reply).toContain('only the operator can install experts');
    expect(await giftWorkflows()).toEqual([]);

    // A yes: the workflow is created, published and registered.
    await llm.addScript(`[install-yes-${run}]`, [
      callTool('install_expert', { expert_id: EXPERT }),
      { content: 'Main: {{last_tool_result}}' },
    ]);
    const askedAgain = await post({
      message: `Install gift ideas [install-yes-${run}]`,
      user_id: OPERATOR_API_USER_ID,
    });
    const approved = await post({
      message: 'Yes, install it',
      user_id: OPERATOR_API_USER_ID,
      reply_to: askedAgain.needs_input!.id,
    });
    expect(approved.reply).toContain('Installed the expert');
    expect(approved.reply).toContain('(gift-ideas): ask it with ask_expert');
    const [row] = await registered();
    expect(await giftWorkflows()).toEqual([{ id: row.workflow_id, name: expect.any(String), active: true }]);

    // The installed expert runs through ask_expert, with its own tools and its own model.
    await setExpertModel(db, EXPERT, 'e2e-gift-model');
    const inner = `[gift-${run}]`;
    await llm.addScript(inner, [
      call('remember_memory', { content: `Anna loves gardening ${run}`, people: 'Anna' }),
      { content: 'Gifts: {{last_tool_result}} A pruning saw.' },
    ]);
    await llm.addScript(`[ask-gift-${run}]`, [
      callTool('ask_expert', { expert_id: EXPERT, task: `Gift ideas for Anna, who gardens ${inner}` }),
      { content: 'Main: {{last_tool_result}}' },
    ]);
    const answered = await post({ message: `Gift for Anna? [ask-gift-${run}]`, user_id: OPERATOR_API_USER_ID });
    expect(answered.reply).toContain('Gifts:');
    expect(answered.reply).toContain('A pruning saw.');
    const expertRequests = await llm.requests(inner);
    expect(new Set(expertRequests.map((request) => request.body.model))).toEqual(new Set(['e2e-gift-model']));
    const giftTools = loadCatalogue().find((entry) => entry.id === EXPERT)!.tools;
    expect(expertRequests[0].body.tools?.map((tool) => tool.function.name).sort()).toEqual([...giftTools].sort());

    // Removed: its workflow is gone from n8n, and ask_expert says it is not installed.
    await llm.addScript(`[remove-gift-${run}]`, [
      callTool('remove_expert', { expert_id: EXPERT }),
      { content: 'Main: {{last_tool_result}}' },
    ]);
    const askedRemove = await post({
      message: `Remove gift ideas [remove-gift-${run}]`,
      user_id: OPERATOR_API_USER_ID,
    });
    expect(askedRemove.needs_input?.question).toMatch(
      /^May I remove an installed expert and its workflow \(expert_id: gift-ideas\)\?/,
    );
    const removed = await post({
      message: 'yes',
      user_id: OPERATOR_API_USER_ID,
      reply_to: askedRemove.needs_input!.id,
    });
    expect(removed.reply).toMatch(/Removed the expert .+gift-ideas.+ and its workflow\./);
    expect(await giftWorkflows()).toEqual([]);
    expect(await registered()).toEqual([]);
  });
});
