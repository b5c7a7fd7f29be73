// The assistant's reliability on the real n8n + Postgres 17, one test per defect: the message is stored before
// anything can fail, every failure answers in the documented envelope (or apologises in chat) and marks the turn,
// limits are checked before the model runs, the caller's wait is bounded while the run goes on, a reply to a
// question is matched first (a code stored only redacted), and successful runs leave no saved execution.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askUser, runMigrations, updateInstanceSettings } from 'assistant-core';
import { CallbackReceiverControl } from '../fakes/callback-receiver';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import { e2eStack, type E2EStack } from './setup/harness';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { waitFor } from '../../scripts/runtime/process';
import { postgresCredentialData } from './setup/postgres-credential';
import { viaRouter } from './setup/tool-calls';

const OWNER_CHAT = 4242001;
const run = Math.random().toString(36).slice(2, 8);
const tag = (name: string) => `[${name}-${run}]`;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
let db: Pool;
let postgresCredential: Record<string, unknown>;

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code?: string; field?: string; message?: string }; turn_id?: number };
}

async function ask(fields: Record<string, unknown>): Promise<Answer> {
  const response = await stack.webhook('agent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
    body: JSON.stringify(fields),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

const turnsOf = async (identity: string) =>
  (
    await db.query<{
      id: string;
      role: string;
      content: string;
      status: string;
      error: string | null;
      redacted: boolean;
    }>(
      `SELECT t.id, t.role, t.content, t.status, t.error, t.redacted FROM assistant.turns t
         JOIN assistant.identities i ON i.user_id = t.user_id WHERE i.identity = $1 ORDER BY t.id`,
      [identity],
    )
  ).rows;

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
  postgresCredential = postgresCredentialData(stack.postgresUrl);
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
  });
  await stack.api('/credentials/asstPostgresDb01', { method: 'PATCH', body: { data: postgresCredential } });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  // Failure reports to the owner's chat would interleave with the chat messages these tests count.
  await updateInstanceSettings(db, { ownerTelegramChatId: String(OWNER_CHAT), failureReportMinutes: 0 });
});

afterAll(async () => {
  await updateInstanceSettings(db, { replyDeadlineSeconds: 600, maxMessageChars: 200_000 }).catch(() => undefined);
  await db?.end();
});

describe('lose no message', () => {
  it('an LLM failure: 502 with the turn id, the message stored as a failed turn, and found by the next turn', async () => {
    const failing = tag('fails');
    await llm.addScript(failing, [{ fail: { status: 500, message: 'upstream exploded' } }]);
    const failed = await ask({ message: `${failing} book the dentist for Friday`, user_id: 'rel-1' });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ error: { code: 'upstream_failed' }, turn_id: expect.any(Number) });
    const stored = await turnsOf('api:rel-1');
    expect(stored).toEqual([
      expect.objectContaining({ id: String(failed.body.turn_id), role: 'user', status: 'failed' }),
    ]);
    expect(stored[0].content).toBe(`${failing} book the dentist for Friday`);
    expect(stored[0].error?.length).toBeGreaterThan(0);

    const again = tag('what-did-i-ask');
    await llm.addScript(again, [{ content: 'You asked me to book the dentist.' }]);
    expect((await ask({ message: `${again} what did I just ask?`, user_id: 'rel-1' })).status).toBe(200);
    const [request] = await llm.requests(again);
    const history = (request.body.messages ?? []).map((m: { role: string; content?: unknown }) => [m.role, m.content]);
    expect(history).toContainEqual(['user', `${failing} book the dentist for Friday`]);
  });

  it('the database unreachable: 503 in the envelope, and nothing reaches the model', async () => {
    const marker = tag('db-down');
    await llm.addScript(marker, [{ content: 'should not run' }]);
    await stack.api('/credentials/asstPostgresDb01', {
      method: 'PATCH',
      body: { data: { ...postgresCredential, password: 'not-the-password', port: 9 } },
    });
    try {
      const answer = await ask({ message: `${marker} hello`, user_id: 'rel-2' });
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'storage_unavailable' } });
    } finally {
      await stack.api('/credentials/asstPostgresDb01', { method: 'PATCH', body: { data: postgresCredential } });
    }
    expect(await llm.requests(marker)).toEqual([]);
  });
});

describe('limits before anything runs', () => {
  it('metadata over 100 kB → 413 naming it; a message over the cap → 413; the model is never called', async () => {
    const marker = tag('limits');
    await llm.addScript(marker, [{ content: 'should not run' }]);
    const metadata = { blob: 'x'.repeat(100_001) };
    const big = await ask({ message: `${marker} hi`, user_id: 'rel-3', metadata });
    expect(big).toMatchObject({ status: 413, body: { error: { code: 'metadata_too_large', field: 'metadata' } } });
    await updateInstanceSettings(db, { maxMessageChars: 50 });
    try {
      const long = await ask({ message: `${marker} ${'y'.repeat(100)}`, user_id: 'rel-3' });
      expect(long).toMatchObject({ status: 413, body: { error: { code: 'message_too_long', field: 'message' } } });
      expect(long.body.error?.message).toMatch(/limit is 50 \(setting maxMessageChars\)/);
    } finally {
      await updateInstanceSettings(db, { maxMessageChars: 200_000 });
    }
    expect(await llm.requests(marker)).toEqual([]);
    expect(await turnsOf('api:rel-3')).toEqual([]);
  });
});

describe('every run has a deadline', () => {
  it('a hanging model: 504 at the reply deadline; the run goes on, and its late reply reaches the caller', async () => {
    const marker = tag('slow');
    await llm.addScript(marker, [{ content: 'Finally, the answer.', delay_ms: 8000 }]);
    const callbacks = new CallbackReceiverControl(stack.fakeUrls.E2E_CALLBACK_RECEIVER_URL);
    const callbackPath = `/late-${run}`;
    await updateInstanceSettings(db, { replyDeadlineSeconds: 2 });
    let answer: Answer;
    try {
      answer = await ask({
        message: `${marker} think hard`,
        user_id: 'rel-4',
        callback_url: `${stack.fakeUrls.E2E_CALLBACK_RECEIVER_URL}${callbackPath}`,
      });
    } finally {
      await updateInstanceSettings(db, { replyDeadlineSeconds: 600 });
    }
    expect(answer.status).toBe(504);
    expect(answer.body).toMatchObject({ error: { code: 'reply_pending' }, turn_id: expect.any(Number) });
    const turnId = String(answer.body.turn_id);
    const answered = await waitFor(
      async () => {
        const turns = await turnsOf('api:rel-4');
        return turns.find((t) => t.id === turnId)?.status === 'answered' ? turns : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: 'the slow turn to be answered' },
    );
    expect(answered.map((t) => [t.role, t.status])).toEqual([
      ['user', 'answered'],
      ['assistant', 'answered'],
    ]);
    expect(answered[1].content).toBe('Finally, the answer.');
    // The caller stopped waiting: the reply is sent to their callback URL, and GET /webhook/agent/turn has it.
    const [callback] = await waitFor(
      async () => ((await callbacks.received(callbackPath)).length > 0 ? callbacks.received(callbackPath) : undefined),
      { timeoutMs: 90_000, intervalMs: 500, what: 'the late reply at the callback URL' },
    );
    expect(JSON.parse(callback.body)).toMatchObject({
      kind: 'reply',
      text: 'Finally, the answer.',
      data: { turn_id: Number(turnId) },
    });
    const state = await stack.webhook(`agent/turn?user_id=rel-4&turn_id=${turnId}`, {
      headers: { 'x-api-key': E2E_ASSISTANT_API_KEY },
    });
    expect(state.status).toBe(200);
    expect(await state.json()).toMatchObject({
      turn_id: Number(turnId),
      status: 'answered',
      reply: 'Finally, the answer.',
    });
    const refused = await stack.webhook(`agent/turn?user_id=rel-4&turn_id=${turnId}`, { headers: {} });
    expect(refused.status).toBe(401);
    const unknown = await stack.webhook(`agent/turn?user_id=rel-4&turn_id=1${turnId}`, {
      headers: { 'x-api-key': E2E_ASSISTANT_API_KEY },
    });
    expect(unknown.status).toBe(404);
  });

  it('every assistant workflow has an execution timeout: a turn 1,800 s (it may wait for its user), a tool 300 s', async () => {
    const listed = await stack.api<{
      data: Array<{ id: string; name: string; settings?: { executionTimeout?: number }; nodes?: { name: string }[] }>;
    }>('/workflows?limit=250');
    const assistant = listed.data.filter((workflow) => workflow.name.startsWith('Assistant'));
    expect(assistant.length).toBeGreaterThanOrEqual(15);
    for (const workflow of assistant) {
      const limits: Record<string, number> = {
        'Assistant: minute tick': 120,
        // Two model calls at the longest model timeout (600 s) and a minute (docs/ASSISTANT.md, "Timeouts").
        'Assistant: heartbeat': 1260,
        'Assistant: daily briefing': 1260,
        'Assistant expert: analyst': 1260,
        'Assistant expert: planner': 1260,
        'Assistant expert: researcher': 1260,
        'Assistant: memory capture': 1260,
        'Assistant: memory consolidation': 1260,
        // The longest reply deadline (900 s) and half a minute.
        'Assistant: webhook entry': 930,
        // The email and Slack entries follow the turn up to the same 900 s reply deadline, then send what they have;
        // Slack's adds time to post the question's buttons and the reply in parts.
        'Assistant: email entry': 930,
        'Assistant Slack entry': 1000,
        'Assistant: run a check': 300,
        'Assistant: outbox endpoint': 60,
        'Assistant: turn state endpoint': 60,
        'Assistant: record failures': 60,
        // 5 minutes of work plus the waits for the user's answers (docs/BROWSER.md).
        'Assistant: run a turn': 1800,
        'Assistant: ask the user': 660,
        // It asks (the ask-user workflow's 660 s) around a decision.
        'Assistant: approval gate': 660,
        'Assistant: one-time code hand-off': 900,
        // They wait for the operator's approval (the ask-user workflow's 660 s) around their own work.
        'Assistant tool: install expert': 720,
        'Assistant tool: build tool': 720,
        'Assistant: tools exposed over MCP': 300,
        // They run another workflow with its own limit (an expert 1,260 or 1,560 s, a built tool 300 s) and outlast it.
        'Assistant tool: ask expert': 1620,
        'Assistant tool: run tool': 330,
        // The agent's router tools (issue 41) outlast the slowest tool they run: a gated tool's 960 s, a browser step
        // behind the gate (1,000 + 660 s), ask_expert's 1,620 s.
        'Assistant tools: memory and people': 960,
        'Assistant tools: tasks and reminders': 960,
        'Assistant tools: web': 960,
        'Assistant tools: checks': 960,
        'Assistant tools: browser': 1660,
        'Assistant tools: experts and tool building': 1620,
        'Assistant tools: settings and failures': 960,
      };
      // A browser step may wait for a one-time code.
      const browserTool =
        workflow.name.startsWith('Assistant tool: browser') && !/screenshot|close/.test(workflow.name);
      // Built tools run 5 minutes; a catalogue expert 1,260 s, or 1,560 s when it may ask the user (docs/EXPERTS.md).
      if (workflow.name.startsWith('Assistant built tool:')) {
        expect([workflow.name, workflow.settings?.executionTimeout]).toEqual([workflow.name, 300]);
        continue;
      }
      if (workflow.name.endsWith('(catalogue)')) {
        expect([1260, 1560]).toContain(workflow.settings?.executionTimeout);
        continue;
      }
      const limit =
        limits[workflow.name] ??
        (browserTool
          ? 1000
          : workflow.name.startsWith('Assistant tool')
            ? 300
            : workflow.name.includes('Telegram')
              ? 60
              : 330);
      // A tool behind the approval gate may first wait for a yes (the gate's 660 s).
      const gated = workflow.nodes?.some((node) => node.name === 'Approval Gate') ?? false;
      expect([workflow.name, workflow.settings?.executionTimeout]).toEqual([workflow.name, limit + (gated ? 660 : 0)]);
    }
  });
});

describe('failure awareness sees every failure', () => {
  it('a provider outage (one row with its count), a refused key and a model that does not answer are named', async () => {
    const user = `rel-fail-${run}`;
    const failing = async (name: string, step: Record<string, unknown>) => {
      const marker = tag(name);
      await llm.addScript(marker, [step as never]);
      return (await ask({ message: `${marker} please`, user_id: user })).status;
    };
    const outage = { fail: { status: 500, message: 'The server had an error while processing your request' } };
    expect(await failing('outage-1', outage)).toBe(502);
    expect(await failing('outage-2', outage)).toBe(502);
    expect(await failing('key', { fail: { status: 401, message: 'Incorrect API key provided: sk-e2e-revoked' } })).toBe(
      502,
    );
    await updateInstanceSettings(db, { modelTimeoutSeconds: 10 });
    try {
      expect([502, 504]).toContain(await failing('no-answer', { hang: true }));
    } finally {
      await updateInstanceSettings(db, { modelTimeoutSeconds: 300 });
    }
    const rows = await db.query<{ source: string; count: number }>(
      `SELECT f.source, f.count FROM assistant.failures f JOIN assistant.identities i ON i.user_id = f.user_id
        WHERE i.identity = $1 AND f.source = 'provider' ORDER BY f.id`,
      [`api:${user}`],
    );
    // Every 500 the provider gave (n8n's Chat Model retries) is in one row: a streak.
    const sent = async (name: string) => (await llm.requests(tag(name))).length;
    const outages = (await sent('outage-1')) + (await sent('outage-2'));
    expect(outages).toBeGreaterThanOrEqual(2);
    expect(rows.rows.map((r) => r.count)).toEqual([outages, await sent('key'), await sent('no-answer')]);

    const marker = tag('what-failed');
    await llm.addScript(marker, [
      { tool_calls: [viaRouter('list_failures', { since: '' })] },
      { content: 'Here is what failed: {{last_tool_result}}' },
    ]);
    const asked = await ask({ message: `Did anything fail today? ${marker}`, user_id: user });
    expect(asked.status).toBe(200);
    const reply = String(asked.body.reply);
    expect(reply).toMatch(
      /the model provider: the chat model provider \([^)]+\) failed \(HTTP 500\), an outage there\?/,
    );
    expect(reply).toMatch(new RegExp(`\\(${outages} times, the last at \\d\\d:\\d\\d\\)`));
    expect(reply).toContain('refused its API key (HTTP 401)');
    expect(reply).toContain('Check ASSISTANT_LLM_API_KEY.');
    expect(reply).not.toContain('sk-e2e-revoked');
    expect(reply).toContain('did not answer in time');
    expect(reply).toContain('a message got no reply');
  });
});

describe('failure awareness names a refused Telegram send', () => {
  it('a reply Telegram refuses (the user blocked the bot) is a failure of that chat, with what Telegram said', async () => {
    const marker = tag('blocked');
    await llm.addScript(marker, [{ content: 'You will not see this.' }]);
    await telegram.block(OWNER_CHAT);
    try {
      await telegram.deliverText(OWNER_CHAT, `${marker} hello`);
      const failure = await waitFor(
        async () =>
          (
            await db.query<{ message: string }>(
              `SELECT f.message FROM assistant.failures f JOIN assistant.identities i ON i.user_id = f.user_id
                WHERE i.identity = $1 AND f.source = 'turn' AND f.message LIKE '%blocked%'`,
              [`telegram:${OWNER_CHAT}`],
            )
          ).rows[0],
        { timeoutMs: 60_000, intervalMs: 500, what: 'the refused send as a failure' },
      );
      expect(failure.message).toMatch(/^the reply could not be delivered: .*Forbidden: bot was blocked by the user/);
    } finally {
      await telegram.block(OWNER_CHAT, false);
    }
  });
});

describe('answers to questions the assistant asked', () => {
  it('webhook reply_to: recorded as the answer, a one-time code only redacted, no agent turn', async () => {
    const marker = tag('code');
    await llm.addScript(marker, [{ content: 'should not run' }]);
    const userId = (
      await db.query<{ user_id: string }>(`INSERT INTO assistant.users DEFAULT VALUES RETURNING id AS user_id`)
    ).rows[0].user_id;
    await db.query(`INSERT INTO assistant.identities (identity, user_id) VALUES ('api:rel-5', $1)`, [userId]);
    const question = await askUser(db, userId, { kind: 'one_time_code', question: 'The code from your app?' });
    const answer = await ask({ message: `${marker} 492113`, user_id: 'rel-5', reply_to: question.id });
    expect(answer).toMatchObject({ status: 200, body: { reply: 'Thanks, I have passed your answer on.' } });
    const stored = await turnsOf('api:rel-5');
    expect(stored).toEqual([
      expect.objectContaining({ role: 'user', redacted: true, content: '[one-time code, redacted]' }),
    ]);
    expect(await llm.requests(marker)).toEqual([]);
  });

  it('Telegram: a message while a question waits answers it, and the chat is thanked', async () => {
    const owner = (
      await db.query<{ user_id: string }>(`SELECT user_id FROM assistant.identities WHERE identity = $1`, [
        `telegram:${OWNER_CHAT}`,
      ])
    ).rows[0]?.user_id;
    const userId =
      owner ?? (await db.query<{ id: string }>('INSERT INTO assistant.users DEFAULT VALUES RETURNING id')).rows[0].id;
    if (!owner) {
      await db.query('INSERT INTO assistant.identities (identity, user_id) VALUES ($1, $2)', [
        `telegram:${OWNER_CHAT}`,
        userId,
      ]);
    }
    const asked = await askUser(db, userId, { kind: 'approval', question: 'Install the researcher expert?' });
    const before = (await telegram.sent(OWNER_CHAT)).length;
    await telegram.deliverText(OWNER_CHAT, `${tag('approve')} yes`);
    // The receipt, whatever else reached the chat meanwhile (a late apology of an earlier failed run).
    const thanks = await waitFor(
      async () =>
        (await telegram.sent(OWNER_CHAT)).slice(before).find((m) => m.text === 'Thanks, I have passed your answer on.'),
      { timeoutMs: 60_000, what: 'the receipt for the answer' },
    );
    expect(thanks.text).toBe('Thanks, I have passed your answer on.');
    const answered = await db.query('SELECT answer FROM assistant.pending_questions WHERE id = $1', [asked.id]);
    expect(answered.rows.map((row) => row.answer)).toEqual([`${tag('approve')} yes`]);
  });
});

describe('executions keep no secret', () => {
  it('successful assistant runs leave no saved execution', async () => {
    const marker = tag('saved');
    await llm.addScript(marker, [{ content: 'done' }]);
    expect((await ask({ message: `${marker} hi`, user_id: 'rel-6' })).status).toBe(200);
    const ids = ['assistantWebhk01', 'assistantAgent01'];
    for (const workflowId of ids) {
      const executions = await stack.api<{ data: Array<{ status: string }> }>(
        `/executions?workflowId=${workflowId}&status=success&limit=250`,
      );
      expect([workflowId, executions.data.length]).toEqual([workflowId, 0]);
    }
  });
});

describe('forget everything', () => {
  it('the forget_everything tool deletes what the assistant knew about the user, and nobody else', async () => {
    for (const user of ['rel-7', 'rel-8']) {
      const remember = tag(`remember-all-${user}`);
      await llm.addScript(remember, [
        { tool_calls: [viaRouter('remember_memory', { content: 'My bank is Erste.', people: '' })] },
        { tool_calls: [viaRouter('create_task', { title: 'Call the bank', due: '', priority: 'high' })] },
        { content: 'Noted.' },
      ]);
      expect((await ask({ message: `${remember} my bank is Erste`, user_id: user })).status).toBe(200);
    }
    // The operator turns on saving successful runs (a workflow setting); rel-7's next turn is then saved.
    const setSaving = async (value: 'all' | 'none') => {
      const workflow = await stack.api<{ name: string; nodes: unknown; connections: unknown; settings: object }>(
        '/workflows/assistantAgent01',
      );
      const settings = { ...workflow.settings, saveDataSuccessExecution: value };
      const body = { name: workflow.name, nodes: workflow.nodes, connections: workflow.connections, settings };
      await stack.api('/workflows/assistantAgent01', { method: 'PUT', body });
      await stack.api('/workflows/assistantAgent01/activate', { method: 'POST' });
    };
    await setSaving('all');
    const saved = tag('forget-saved');
    await llm.addScript(saved, [{ content: 'Saved for once.' }]);
    try {
      expect((await ask({ message: `${saved} keep this run`, user_id: 'rel-7' })).status).toBe(200);
    } finally {
      await setSaving('none');
    }
    const rel7 = (
      await db.query<{ user_id: string }>(`SELECT user_id FROM assistant.identities WHERE identity = 'api:rel-7'`)
    ).rows[0].user_id;
    const savedOf = async (userId: string) => {
      const listed = await stack.api<{ data: Array<{ id: string; status: string; data?: unknown }> }>(
        '/executions?includeData=true&limit=250',
      );
      return listed.data.filter((execution) => JSON.stringify(execution.data ?? null).includes(userId));
    };
    expect((await savedOf(rel7)).length).toBeGreaterThan(0);
    const counts = async (identity: string) =>
      (
        await db.query<{ memories: string; tasks: string }>(
          `SELECT (SELECT count(*) FROM assistant.memories m WHERE m.user_id = i.user_id) AS memories,
                  (SELECT count(*) FROM assistant.tasks t WHERE t.user_id = i.user_id) AS tasks
             FROM assistant.identities i WHERE i.identity = $1`,
          [identity],
        )
      ).rows[0];
    /** The model calls forget_everything; the tool asks the user, who answers `answer`; the reply comes back. */
    const forgetAnswered = async (name: string, answer: string): Promise<string> => {
      const forget = tag(name);
      await llm.addScript(forget, [
        { tool_calls: [viaRouter('forget_everything', {})] },
        { content: 'Forget: {{last_tool_result}}' },
      ]);
      const asked = await ask({ message: `${forget} forget everything about me`, user_id: 'rel-7' });
      expect(asked.status).toBe(200);
      const question = asked.body.needs_input as { id: string; question: string } | undefined;
      expect(question?.question).toMatch(/^Forget everything I keep about you: .* Reply yes to forget it all/);
      const answered = await ask({ message: answer, user_id: 'rel-7', reply_to: question!.id });
      expect(answered.status).toBe(200);
      return String(answered.body.reply ?? '');
    };
    // A no keeps everything; only the user's yes forgets.
    expect(await forgetAnswered('forget-no', 'No, keep it')).toMatch(/Nothing was forgotten: the user did not say yes/);
    expect(await counts('api:rel-7')).toEqual({ memories: '1', tasks: '1' });
    expect(await forgetAnswered('forget-all', 'yes')).toMatch(/^Forget: /);
    expect(await counts('api:rel-7')).toEqual({ memories: '0', tasks: '0' });
    // rel-7's saved executions are purged (the forgetting run itself is not saved: it succeeded).
    expect((await savedOf(rel7)).map((execution) => execution.status)).toEqual([]);
    expect(await counts('api:rel-8')).toEqual({ memories: '1', tasks: '1' });
    // The forgetting turn itself (stored on arrival, answered after) is all that is left of rel-7's turns.
    expect((await turnsOf('api:rel-7')).map((t) => t.role)).toEqual(['user', 'assistant']);
  });
});
