// Every registry tool reachable from the main agent through its router (issue 41, part 2), on the real n8n + Postgres
// 17: the chat fake calls each tool by name — `action` of its group's router, with arguments a model would give — one
// turn per router (the agent stops after 30 steps), answering every question a gated tool asks with a no; each call's
// result comes back to the model as its tool message, none of them the router's refusal. A bad action and a missing
// argument come back as the router's sentence naming the action and the field.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_API_USER_ID } from 'assistant-core';
import { TOOL_GROUPS, TOOL_REGISTRY, type ToolGroup } from '../../assistant/src/tools/registry';
import { TOOL_CALLS } from '../../assistant/src/tools/arguments';
import { TOOL_ROUTERS } from '../../assistant/src/tools/routers';
import { OpenAiChatFakeControl, messageText, type ScriptStep } from '../fakes/openai-chat';
import { e2eStack, type E2EStack } from './setup/harness';
import { configureAssistantCredentials, postToAgent } from './setup/assistant';
import { callTool, viaRouter } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let site: string;
let db: Pool;

/** Arguments a model would give each tool; ids that do not exist, so nothing real is changed or removed. */
function argumentsFor(tool: string): Record<string, unknown> {
  const given: Record<string, Record<string, unknown>> = {
    remember_memory: { content: `The routers reach every tool (${run}).`, people: '' },
    recall_memories: { query: 'routers' },
    update_memory: { memory_id: 999_999_999, content: 'Nothing.' },
    forget_memory: { memory_id: 999_999_999 },
    upsert_entity: { name: `Router Test ${run}`, entity_type: 'project', summary: '' },
    relate_entities: { from: `Router Test ${run}`, relation: 'part_of', to: 'Issue 41' },
    query_graph: { name: `Router Test ${run}` },
    memory_panel: { action: 'list' },
    create_task: { title: `Router task ${run}`, due: 'tomorrow', priority: 'low' },
    list_tasks: { filter: 'all' },
    update_task: { task_id: 999_999_999, title: 'Nothing' },
    set_reminder: { text: `Router reminder ${run}`, when: 'tomorrow at 9' },
    cancel_reminder: { reminder_id: '999999999' },
    schedule_action: { instruction: 'Summarise my open tasks', schedule: 'daily at 18:00' },
    change_action: { action_id: '999999999', change: 'pause' },
    spending: { period: 'today' },
    web_search: { query: 'riverside zoo opening hours' },
    read_page: { url: `${site}/articles/zoo` },
    add_check: { what: `${site}/articles/zoo`, schedule: 'every day at 9:00' },
    browser_open: { url: `${site}/articles/zoo` },
    browser_fill: { ref: '99', value: 'x' },
    browser_click: { ref: '99' },
    browser_select: { ref: '99', option: 'x' },
    ask_user: { question: 'Which of the two do you mean?' },
    install_expert: { expert_id: 'no-such-expert' },
    remove_expert: { expert_id: 'no-such-expert' },
    ask_expert: { expert_id: 'no-such-expert', task: 'Nothing to do.' },
    build_tool: { spec: '{}' },
    run_tool: { name: 'no_such_tool', input: {} },
    disable_tool: { name: 'no_such_tool' },
    delete_tool: { name: 'no_such_tool' },
  };
  if (given[tool]) return given[tool];
  // The rest: each required argument a plain value of its type (an expert's task, an id that does not exist).
  const args: Record<string, unknown> = {};
  for (const arg of TOOL_CALLS[tool].arguments.filter((found) => found.required)) {
    args[arg.name] = arg.type === 'number' ? 999_999_999 : arg.name === 'task' ? 'Say hello.' : '999999999';
  }
  return args;
}

interface AgentAnswer {
  reply?: string;
  needs_input?: { id: string; question: string };
}

/** A failed turn's stored error and the tool results the model had got by then, to say why in the test's failure. */
async function whyFailed(body: unknown, message: string): Promise<string> {
  const turnId = (body as { turn_id?: number }).turn_id;
  const stored = turnId ? await db.query('SELECT error FROM assistant.turns WHERE id = $1', [turnId]) : undefined;
  const marker = /^\[[^\]]+\]/.exec(message)?.[0] ?? message;
  const results = await toolResults(marker);
  return `${JSON.stringify(body)}; turn error: ${String(stored?.rows[0]?.error)}; tool results so far: ${JSON.stringify(results).slice(0, 3000)}`;
}

/** A turn to its end: every question a gated tool (or ask_user) asks on the way is answered with a no. */
async function turn(message: string): Promise<{ reply: string; questions: string[] }> {
  const questions: string[] = [];
  let answer = await postToAgent<AgentAnswer>(stack, { user_id: OPERATOR_API_USER_ID, message });
  while (answer.body.needs_input) {
    expect(answer.status).toBe(200);
    questions.push(answer.body.needs_input.question);
    expect(questions.length, 'more questions than tools').toBeLessThan(20);
    answer = await postToAgent<AgentAnswer>(stack, {
      user_id: OPERATOR_API_USER_ID,
      message: 'No',
      reply_to: answer.body.needs_input.id,
    });
  }
  if (answer.status !== 200) throw new Error(`${message}: ${await whyFailed(answer.body, message)}`);
  return { reply: answer.body.reply ?? '', questions };
}

/** The tool messages the model got in a turn, in call order: the action called and the result. */
async function toolResults(marker: string): Promise<Array<{ router: string; action: string; result: string }>> {
  const requests = await llm.requests(marker);
  const messages = requests.at(-1)?.body.messages ?? [];
  const calls = new Map(
    messages.flatMap((message) => message.tool_calls ?? []).map((call) => [call.id, call.function] as const),
  );
  return messages
    .filter((message) => message.role === 'tool')
    .map((message) => {
      const call = calls.get(String(message.tool_call_id));
      const action = String((JSON.parse(call?.arguments ?? '{}') as { action?: string }).action);
      return { router: call?.name ?? '', action, result: messageText(message) };
    });
}

const REFUSED = /has no action|is not an argument of|is required;|must be a (number|JSON object)/;

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  site = stack.fakeUrls.E2E_WEB_SITE_URL;
  await configureAssistantCredentials(stack);
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
});
afterAll(() => db?.end());

describe('the router tools', () => {
  it.each(TOOL_GROUPS.map((group) => [TOOL_ROUTERS[group].name, group] as [string, ToolGroup]))(
    'the %s router reaches each of its tools by name, and each result comes back',
    async (_router, group) => {
      const tools = TOOL_REGISTRY.filter((tool) => tool.group === group).map((tool) => tool.name);
      const marker = `[routers-${TOOL_ROUTERS[group].name}-${run}]`;
      const steps: ScriptStep[] = tools.map((tool) => callTool(tool, argumentsFor(tool)));
      await llm.addScript(marker, [...steps, { content: `All ${tools.length} tools answered.` }]);
      const { reply } = await turn(`${marker} Use every tool of the group once.`);
      expect(reply).toBe(`All ${tools.length} tools answered.`);
      const results = await toolResults(marker);
      expect(results.map((result) => result.action)).toEqual(tools);
      for (const result of results) {
        expect(result.router, result.action).toBe(TOOL_ROUTERS[group].name);
        expect(result.result.trim(), result.action).not.toBe('');
        expect(result.result, result.action).not.toMatch(REFUSED);
      }
    },
  );

  it('answers a bad action and a missing argument with a sentence naming them', async () => {
    const marker = `[routers-bad-${run}]`;
    await llm.addScript(marker, [
      {
        tool_calls: [{ name: 'web', arguments: { action: 'browser_open', args: JSON.stringify({ url: `${site}/` }) } }],
      },
      { tool_calls: [viaRouter('recall_memories', {})] },
      { content: 'Refused twice.' },
    ]);
    expect((await turn(`${marker} Do two wrong things.`)).reply).toBe('Refused twice.');
    const [badAction, missing] = await toolResults(marker);
    expect(badAction.result).toMatch(
      /action: web has no action \\?"browser_open\\?"; its actions are web_search, read_page/,
    );
    expect(missing.result).toContain('recall_memories: args.query: is required');
  });
});
