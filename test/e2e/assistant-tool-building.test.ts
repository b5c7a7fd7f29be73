// Tool building on the real n8n + Postgres 17, through the scripted fake model, against a loopback weather API
// (OpenWeatherMap's format, its key in an n8n Query Auth credential the spec names): "build a tool that gets the
// weather for a city" → the workflow created inactive → its test output shown to the owner on the fake Telegram →
// "yes" → the agent answers a weather question through run_tool. A "no" leaves nothing; a private address, a loopback
// port off the allow list and a literal key are refused with the reason; a failing test returns n8n's message; the
// workflow holds no secret; disabling switches it off and deleting removes the workflow. An MCP client lists and calls
// the exposed tools (the live one through run_tool) with the bearer token, and is refused without it.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMigrations, updateInstanceSettings } from 'assistant-core';
import { E2E_WEATHER_API_KEY } from '../fakes/assistant-e2e-fakes';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import { e2eStack, type E2EStack } from './setup/harness';
import { configureAssistantCredentials, postToAgent } from './setup/assistant';
import { E2E_MCP_TOKEN } from './setup/secrets';
import { callTool } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const OWNER_CHAT = 4242007;
const CREDENTIAL = `E2E Weather ${run}`;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
let db: Pool;
let weather: string;

/** The main agent calls a registry tool (through its router). */
const call = (name: string, args: Record<string, string>): ScriptStep => callTool(name, args);

function weatherSpec(name: string, overrides: Record<string, unknown> = {}) {
  return {
    name,
    purpose: 'Gets the current weather for a city.',
    inputs: [{ name: 'city', type: 'string', description: 'The city, e.g. Paris', sample: 'Paris' }],
    method: 'GET',
    url: `${weather}/data/2.5/weather?q={city}&units=metric`,
    credential: CREDENTIAL,
    responseFields: [
      { name: 'temperature', path: 'main.temp' },
      { name: 'summary', path: 'weather.0.description' },
    ],
    ...overrides,
  };
}

interface AgentAnswer {
  reply?: string;
  needs_input?: { id: string; question: string };
}

async function post(body: Record<string, unknown>): Promise<AgentAnswer> {
  const answer = await postToAgent<AgentAnswer>(stack, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

/** The model builds the tool from `spec` over the webhook, as the operator ("owner"). */
async function build(spec: unknown, marker: string): Promise<AgentAnswer> {
  await llm.addScript(marker, [
    call('build_tool', { spec: JSON.stringify(spec) }),
    { content: 'Build: {{last_tool_result}}' },
  ]);
  return await post({ message: `Build me a tool ${marker}`, user_id: 'owner' });
}

const workflowsNamed = async (name: string) =>
  (await stack.api<{ data: Array<{ id: string; name: string; active: boolean }> }>('/workflows?limit=250')).data
    .filter((workflow) => workflow.name === `Assistant built tool: ${name}`)
    .map(({ id, name: found, active }) => ({ id, name: found, active }));
const registered = async (name: string) =>
  (await db.query(`SELECT status, spec, test_output FROM assistant.built_tools WHERE name = $1`, [name])).rows;

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
  weather = stack.fakeUrls.E2E_WEATHER_API_URL;
  await configureAssistantCredentials(stack);
  // What the operator does first: the weather API's key in an n8n credential, which the spec names.
  await stack.api('/credentials', {
    method: 'POST',
    body: { name: CREDENTIAL, type: 'httpQueryAuth', data: { name: 'appid', value: E2E_WEATHER_API_KEY } },
  });
  await stack.api('/credentials/asstMcpBearer001', { method: 'PATCH', body: { data: { token: E2E_MCP_TOKEN } } });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  await updateInstanceSettings(db, { ownerTelegramChatId: String(OWNER_CHAT), failureReportMinutes: 0 });
});

afterAll(async () => {
  await db?.end();
});

describe('tool building', () => {
  const NAME = `city_weather_${run}`;

  it('builds on Telegram: the test output goes to the owner, a yes makes it live, and the agent uses it', async () => {
    const marker = `[tg-build-${run}]`;
    await llm.addScript(marker, [
      call('build_tool', { spec: JSON.stringify(weatherSpec(NAME)) }),
      { content: 'Build: {{last_tool_result}}' },
    ]);
    const before = (await telegram.sent(OWNER_CHAT)).length;
    await telegram.deliverText(OWNER_CHAT, `Build a tool that gets the weather for a city ${marker}`);
    const [question] = (await telegram.waitForSent(OWNER_CHAT, before + 1, 120_000)).slice(before);
    expect(question.text).toMatch(
      new RegExp(`^Activate the built tool "${NAME}"\\? Gets the current weather for a city\\.`),
    );
    expect(question.text).toContain(`with the credential "${CREDENTIAL}"`);
    expect(question.text).toMatch(/Test with city="Paris" gave: \[\{"temperature":"18\.5","summary":"light rain"\}\]/);
    // While the owner decides, the workflow exists and is not active.
    expect(await workflowsNamed(NAME)).toEqual([
      { id: expect.any(String), name: `Assistant built tool: ${NAME}`, active: false },
    ]);

    await telegram.deliverText(OWNER_CHAT, 'yes', undefined, question.message_id);
    const rest = (await telegram.waitForSent(OWNER_CHAT, before + 3, 120_000)).slice(before + 1);
    const reply = rest.find((message) => message.text.startsWith('Build:'));
    expect(reply?.text).toContain('is live: call it with run_tool');
    const [live] = await workflowsNamed(NAME);
    expect(live.active).toBe(true);
    expect(await registered(NAME)).toMatchObject([{ status: 'active' }]);

    // Any user's agent answers a weather question through the new tool.
    await llm.addScript(`[weather-${run}]`, [
      call('run_tool', { name: NAME, input: '{"city": "Oslo"}' }),
      { content: 'Weather: {{last_tool_result}}' },
    ]);
    const answered = await post({ message: `Weather in Oslo? [weather-${run}]`, user_id: `weather-${run}` });
    expect(answered.reply).toContain('-3.25');
    expect(answered.reply).toContain('snow');

    // No secret anywhere in what was generated: the workflow names the credential, the key stays in it.
    const workflow = JSON.stringify(await stack.api(`/workflows/${live.id}`));
    expect(workflow).not.toContain(E2E_WEATHER_API_KEY);
    expect(workflow).toContain(`"name":"${CREDENTIAL}"`);
    expect(JSON.stringify(await registered(NAME))).not.toContain(E2E_WEATHER_API_KEY);
  });

  it('exposes tools over MCP: listed and called with the bearer token, refused without it', async () => {
    const url = new URL(`${stack.n8nUrl}/mcp/assistant-tools`);
    const client = new Client({ name: 'e2e-outside-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { Authorization: `Bearer ${E2E_MCP_TOKEN}` } },
      }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(['list_tools', 'read_page', 'run_tool']);
      const result = await client.callTool({ name: 'run_tool', arguments: { name: NAME, input: '{"city": "Paris"}' } });
      expect(JSON.stringify(result.content)).toContain('light rain');
    } finally {
      await client.close();
    }
    const initialize = (token?: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'stranger', version: '1' } },
        }),
      });
    expect([401, 403]).toContain((await initialize()).status);
    expect([401, 403]).toContain((await initialize('not-the-token')).status);
  });

  it('disables and deletes the tool: run_tool no longer reaches it, and the workflow is gone', async () => {
    const [live] = await workflowsNamed(NAME);
    // Destructive: the approval gate asks the operator first, naming the call; a no keeps the tool live.
    await llm.addScript(`[disable-no-${run}]`, [
      call('disable_tool', { name: NAME }),
      { content: 'Done: {{last_tool_result}}' },
    ]);
    const askedOff = await post({ message: `Switch it off [disable-no-${run}]`, user_id: 'owner' });
    expect(askedOff.needs_input?.question).toMatch(
      new RegExp(`^May I switch a built tool off \\(name: ${NAME}\\)\\? .*\\[disable_tool [0-9a-f]{12}\\]$`),
    );
    const kept = await post({ message: 'no', user_id: 'owner', reply_to: askedOff.needs_input!.id });
    expect(kept.reply).toContain('Not done: the user did not say yes, so disable_tool did not run.');
    expect((await workflowsNamed(NAME))[0].active).toBe(true);
    await llm.addScript(`[disable-${run}]`, [
      call('disable_tool', { name: NAME }),
      { content: 'Done: {{last_tool_result}}' },
    ]);
    const askedAgain = await post({ message: `Switch it off [disable-${run}]`, user_id: 'owner' });
    expect((await post({ message: 'yes', user_id: 'owner', reply_to: askedAgain.needs_input!.id })).reply).toContain(
      'switched off',
    );
    expect((await workflowsNamed(NAME))[0].active).toBe(false);
    await llm.addScript(`[weather-off-${run}]`, [
      call('run_tool', { name: NAME, input: '{"city": "Oslo"}' }),
      { content: 'Weather: {{last_tool_result}}' },
    ]);
    const off = await post({ message: `Weather? [weather-off-${run}]`, user_id: `weather-${run}` });
    expect(off.reply).toContain(`no live tool`);

    await llm.addScript(`[delete-${run}]`, [
      call('delete_tool', { name: NAME }),
      { content: 'Done: {{last_tool_result}}' },
    ]);
    const askedDelete = await post({ message: `Delete it [delete-${run}]`, user_id: 'owner' });
    expect((await post({ message: 'Yes', user_id: 'owner', reply_to: askedDelete.needs_input!.id })).reply).toContain(
      'Deleted the tool',
    );
    expect(await workflowsNamed(NAME)).toEqual([]);
    expect(await registered(NAME)).toEqual([]);
    await expect(stack.api(`/workflows/${live.id}`)).rejects.toThrow(/404/);
  });

  it('a no leaves nothing, over the webhook', async () => {
    const name = `weather_no_${run}`;
    const asked = await build(weatherSpec(name), `[build-no-${run}]`);
    expect(asked.needs_input?.question).toContain(`Activate the built tool "${name}"?`);
    const refused = await post({ message: 'No', user_id: 'owner', reply_to: asked.needs_input!.id });
    expect(refused.reply).toContain('Not activated: the operator did not approve it');
    expect(await workflowsNamed(name)).toEqual([]);
    expect(await registered(name)).toEqual([]);
  });

  it('refuses a private address, a loopback port off the allow list and a literal key, with the reason', async () => {
    const name = `weather_bad_${run}`;
    const privateAddress = await build(
      weatherSpec(name, { url: 'http://10.20.30.40/data/2.5/weather?q={city}' }),
      `[build-private-${run}]`,
    );
    expect(privateAddress.reply).toContain('refused by the outbound guard');
    const offList = await build(
      weatherSpec(name, { url: 'http://127.0.0.1:9/data/2.5/weather?q={city}' }),
      `[build-loopback-${run}]`,
    );
    expect(offList.reply).toContain('refused by the outbound guard');
    const literal = await build(
      // A key the user pasted into the chat: refused, never put into a workflow.
      weatherSpec(name, { url: `${weather}/data/2.5/weather?q={city}&api_key=pasted-key-0123456789abcdef` }),
      `[build-secret-${run}]`,
    );
    expect(literal.reply).toContain('holds a literal secret');
    expect(await workflowsNamed(name)).toEqual([]);
  });

  it("a failing test execution returns n8n's message to the model and keeps nothing", async () => {
    const name = `weather_fail_${run}`;
    const failed = await build(
      weatherSpec(name, { inputs: [{ name: 'city', type: 'string', description: 'The city', sample: 'Atlantis' }] }),
      `[build-fail-${run}]`,
    );
    expect(failed.reply).toContain(`The test execution of`);
    expect(failed.reply).toMatch(/failed, so nothing was kept: .*(could not be found|city not found|404)/);
    expect(await workflowsNamed(name)).toEqual([]);
    expect(await registered(name)).toEqual([]);
    // The failure was reported without the key (the teardown also scans n8n's tables, saved executions included).
    const failures = await db.query(`SELECT * FROM assistant.failures ORDER BY id DESC LIMIT 20`);
    expect(JSON.stringify(failures.rows)).not.toContain(E2E_WEATHER_API_KEY);
  });
});
