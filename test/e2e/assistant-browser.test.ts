// The browser tools and the one-time-code hand-off on the real n8n + Postgres 17 and the stack's browser service
// (real headless Chromium), against a loopback site with a sign-in behind a TOTP code (codes computed here). The
// scripted model drives the tools; the test plays the user: on Telegram it answers the code question (a wrong code
// first), on the webhook it answers `needs_input` with `reply_to`. Then: a pause that expires; the sign-in kept after
// restarting the browser service and n8n; a screenshot as a photo and as a webhook attachment; a click that sends a
// form waiting for a yes (a sign-in with the stored login does not); bad input refused with a clear tool message; and
// the site password in no turn, memory, log line or execution.
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getTurn, OPERATOR_API_USER_ID, resolveIdentity, runMigrations, updateInstanceSettings } from 'assistant-core';
import { E2E_SITE_PASSWORD, E2E_SITE_TOTP_SECRET, E2E_SITE_USERNAME } from '../fakes/assistant-e2e-fakes';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { TelegramBotApiFakeControl } from '../fakes/telegram-bot-api';
import { createBrowserClient } from 'assistant-core/browser';
import { totp } from '../../assistant/test/browser/login-site';
import { waitFor } from '../../scripts/runtime/process';
import { e2eStack, type E2EStack } from './setup/harness';
import { configureAssistantCredentials, postToAgent } from './setup/assistant';
import { callTool } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const OWNER_CHAT = 4242001;
const LOGIN = 'bank';

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let telegram: TelegramBotApiFakeControl;
let db: Pool;
let site: string;

/** The main agent calls a registry tool (through its router). */
const call = (name: string, args: Record<string, string>): ScriptStep => callTool(name, args);
/** browser_fill's arguments as a model gives them: every field, the unused ones empty. */
const fill = (ref: string, given: { value?: string; login?: string; part?: string }) =>
  call('browser_fill', { ref, value: '', login: '', part: '', ...given });
/** Open the sign-in page, type the stored login, click Sign in: the site then asks for a code (the hand-off). */
const signIn = (url: string): ScriptStep[] => [
  call('browser_open', { url }),
  fill('1', { login: LOGIN, part: 'username' }),
  fill('2', { login: LOGIN, part: 'password' }),
  call('browser_click', { ref: '3' }),
];

const currentCode = () => totp(E2E_SITE_TOTP_SECRET);
/** The browser_click tool's workflow. */
const CLICK_TOOL = 'asstToolBrwClik1';

/**
 * A webhook user `browser-<kind>-<run>` asks to be signed in: the scripted model opens the page, types the login and
 * clicks, the site asks for a code, and the caller gets `needs_input`; then the model answers `finalReply`.
 */
async function signInAsked(kind: string, finalReply: string) {
  const marker = await script(`[api-${kind}-${run}]`, [...signIn(`${site}/login`), { content: finalReply }]);
  const user = `browser-${kind}-${run}`;
  const asked = await post({ message: `Sign me in ${marker}`, user_id: user });
  expect(asked.body.needs_input).toBeDefined();
  return { user, asked, userId: (await resolveIdentity(db, 'api', user)).userId };
}

/** The turn's reply once the run stored it (bounded at 90 s). */
async function replyOf(userId: string, turnId: number, what: string): Promise<string> {
  let reply: string | null = null;
  await waitFor(
    async () => {
      reply = (await getTurn(db, userId, turnId)).reply;
      return reply !== null;
    },
    { timeoutMs: 90_000, what },
  );
  return reply!;
}

/** Whether the browser service has a task open for this user (its task list, read with its key). */
async function hasOpenTask(userId: string): Promise<boolean> {
  const tasks = await createBrowserClient(stack.browser!).session.tasks();
  return tasks.tasks.some((task) => task.user === userId);
}
/** A code that is valid neither now nor in the previous window. */
const wrongCode = () => String((Number(currentCode()) + 500_000) % 1_000_000).padStart(6, '0');

interface AgentAnswer {
  status: number;
  body: {
    reply?: string;
    turn_id?: number;
    needs_input?: { id: string; question: string; expires_at: string };
    attachments?: Array<{ file_name: string; mime_type: string; data_base64: string }>;
    error?: { code: string; message: string };
  };
}

const post = (body: Record<string, unknown>): Promise<AgentAnswer> => postToAgent<AgentAnswer['body']>(stack, body);

async function script(marker: string, steps: ScriptStep[]): Promise<string> {
  await llm.addScript(marker, steps);
  return marker;
}

/** The bot's messages to the owner's chat after `count` of them, waiting until `more` arrived. */
async function nextMessages(count: number, more: number) {
  const sent = await telegram.waitForSent(OWNER_CHAT, count + more, 120_000);
  expect(sent.length, 'the bot sent the expected messages').toBeGreaterThanOrEqual(count + more);
  return sent.slice(count);
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  telegram = new TelegramBotApiFakeControl(stack.fakeUrls.E2E_TELEGRAM_BOT_API_URL);
  site = stack.fakeUrls.E2E_LOGIN_SITE_URL;
  // What an operator does after install: the API key, the database, and the site logins the assistant may type.
  await configureAssistantCredentials(stack);
  await stack.api('/credentials/asstSiteLogins01', {
    method: 'PATCH',
    body: {
      data: {
        // The owner's login, shared with the webhook users of these tests (not with browser-other-…).
        logins: JSON.stringify([
          {
            name: LOGIN,
            site,
            username: E2E_SITE_USERNAME,
            password: E2E_SITE_PASSWORD,
            users: [
              'owner',
              ...['', '-expire', '-stop', '-deadline', '-bad'].map((kind) => `api:browser${kind}-${run}`),
            ],
          },
        ]),
      },
    },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);
  await updateInstanceSettings(db, { ownerTelegramChatId: String(OWNER_CHAT), failureReportMinutes: 0 });
});

afterAll(async () => {
  await db?.end();
});

describe('browser tasks with the one-time-code hand-off', () => {
  it('on Telegram: signs in with the stored login, asks for the code, retries after a wrong one, and gets in', async () => {
    const marker = await script(`[tg-login-${run}]`, [
      ...signIn(`${site}/login`),
      call('browser_click', { ref: '2' }), // Verify, after the wrong code: the site refuses it and asks again
      call('browser_click', { ref: '2' }), // Verify, after the right code
      call('browser_screenshot', {}),
      { content: 'Done. {{last_tool_result}}' },
    ]);
    const before = (await telegram.sent(OWNER_CHAT)).length;
    await telegram.deliverText(OWNER_CHAT, `Sign me in to the bank ${marker}`);

    const [first] = await nextMessages(before, 1);
    expect(first.text).toMatch(/asks for a one-time code \("Authentication code"\)\. Reply with the code\./);
    // A reply to the question's message answers that question: a wrong code first.
    const wrong = wrongCode();
    await telegram.deliverText(OWNER_CHAT, wrong, undefined, first.message_id);
    const afterWrong = await nextMessages(before + 1, 2); // the receipt, then the question again
    expect(afterWrong[0].text).toBe('Thanks, I have passed your answer on.');
    expect(afterWrong[1].text).toMatch(/The last code was not accepted\. Reply with the code\./);
    // A plain message answers the oldest open question.
    const right = currentCode();
    await telegram.deliverText(OWNER_CHAT, right);
    const rest = await nextMessages(before + 3, 3); // receipt, the photo, the reply
    const photo = rest.find((m) => m.photo);
    expect(photo?.photo).toMatchObject({ format: 'png' });
    const reply = rest.find((m) => !m.photo && m.text.startsWith('Done.'));
    expect(reply?.text).toContain(`Signed in as ${E2E_SITE_USERNAME}`);

    // The model never saw the password or a code; the codes are stored only redacted.
    const requests = JSON.stringify(await llm.requests(marker));
    expect(requests).not.toContain(E2E_SITE_PASSWORD);
    expect(requests).not.toContain(right);
    expect(requests).toContain('Typed the password of the site login');
    const user = (await resolveIdentity(db, 'telegram', String(OWNER_CHAT))).userId;
    const turns = await db.query<{ content: string }>(
      `SELECT content FROM assistant.turns WHERE user_id = $1 AND id > (SELECT max(id) - 20 FROM assistant.turns)`,
      [user],
    );
    const stored = turns.rows.map((row) => row.content).join('\n');
    expect(stored).toContain('[one-time code, redacted]');
    expect(stored).not.toContain(right);
    expect(stored).not.toContain(wrong);
  });

  it('on the webhook: needs_input, answered with reply_to; the answer gets the rest of the run and its screenshot', async () => {
    const marker = await script(`[api-login-${run}]`, [
      ...signIn(`${site}/login`),
      call('browser_click', { ref: '2' }),
      call('browser_screenshot', {}),
      { content: 'Signed in. {{last_tool_result}}' },
    ]);
    const user = `browser-${run}`;
    const asked = await post({ message: `Sign me in to the bank ${marker}`, user_id: user });
    expect(asked.status).toBe(200);
    expect(asked.body.reply).toBeUndefined();
    expect(asked.body.needs_input).toMatchObject({
      id: expect.any(String),
      question: expect.stringMatching(/asks for a one-time code/),
      expires_at: expect.any(String),
    });
    const answered = await post({ message: currentCode(), user_id: user, reply_to: asked.body.needs_input!.id });
    expect(answered.status).toBe(200);
    expect(answered.body.turn_id).toBe(asked.body.turn_id);
    expect(answered.body.reply).toContain(`Signed in as ${E2E_SITE_USERNAME}`);
    expect(answered.body.attachments).toEqual([
      { file_name: 'screenshot.png', mime_type: 'image/png', data_base64: expect.stringMatching(/^iVBORw0KGgo/) },
    ]);
  });

  it('keeps the sign-in after the browser service and n8n restart', async () => {
    await stack.restartBrowser();
    await stack.restartN8n();
    const marker = await script(`[api-kept-${run}]`, [
      call('browser_open', { url: `${site}/account` }),
      call('browser_close', {}),
      { content: 'Account: {{last_tool_result}}' },
    ]);
    const answer = await post({ message: `Open my bank account page ${marker}`, user_id: `browser-${run}` });
    expect(answer.status).toBe(200);
    const opened = JSON.stringify((await llm.requests(marker)).find((r) => r.step === 1)?.body.messages ?? []);
    expect(opened).toContain(`Signed in as ${E2E_SITE_USERNAME}`);
    expect(opened).not.toContain('Sign in to Example Bank');
  });

  it('a browser task of more than 10 steps finishes (the agent has 30)', async () => {
    const marker = await script(`[api-long-${run}]`, [
      call('browser_open', { url: `${site}/account` }),
      ...Array.from({ length: 12 }, () => call('browser_snapshot', {})),
      call('browser_close', {}),
      { content: 'Looked 12 times: {{last_tool_result}}' },
    ]);
    const answer = await post({ message: `Watch my account closely ${marker}`, user_id: `browser-${run}` });
    expect(answer.status).toBe(200);
    expect(answer.body.reply).toMatch(/^Looked 12 times: /);
    expect((await llm.requests(marker)).map((r) => r.step)).toEqual(Array.from({ length: 15 }, (_, i) => i));
  });

  it('a question nobody answers expires with a clear message, and the run goes on', async () => {
    await updateInstanceSettings(db, { questionTtlSeconds: 8 });
    try {
      const { user, asked, userId } = await signInAsked('expire', 'No code: {{last_tool_result}}');
      const reply = await replyOf(userId, asked.body.turn_id!, 'the reply after the question expired');
      expect(reply).toMatch(/did not answer in time; the question expired/);
      // A late answer is refused, naming the field.
      const late = await post({ message: currentCode(), user_id: user, reply_to: asked.body.needs_input!.id });
      expect(late.status).toBe(400);
      expect(late.body.error?.message).toMatch(/expired/);
    } finally {
      await updateInstanceSettings(db, { questionTtlSeconds: 300 });
    }
  });

  it('a browser tool stopped through the API while it waits for a code closes its browser task', async () => {
    await updateInstanceSettings(db, { questionTtlSeconds: 30 }); // the code question left behind ends soon
    try {
      const { userId } = await signInAsked('stop', 'Stopped: {{last_tool_result}}');
      expect(await hasOpenTask(userId)).toBe(true);
      // The click tool's sub-execution is the one waiting (in its code hand-off): stop it as an operator would.
      const running = await stack.api<{ data: Array<{ id: string }> }>(
        `/executions?status=running&workflowId=${CLICK_TOOL}`,
      );
      expect(running.data).toHaveLength(1);
      await stack.api(`/executions/${running.data[0].id}/stop`, { method: 'POST' });
      await waitFor(async () => !(await hasOpenTask(userId)), {
        timeoutMs: 60_000,
        what: 'the browser task closed after its tool was stopped',
      });
    } finally {
      await updateInstanceSettings(db, { questionTtlSeconds: 300 });
    }
  });

  it('a run whose deadline passes while it waits for a code closes the task and withdraws the question', async () => {
    await updateInstanceSettings(db, { runLimitSeconds: 40 });
    try {
      const { user, asked, userId } = await signInAsked('deadline', 'Out of time: {{last_tool_result}}');
      expect(await hasOpenTask(userId)).toBe(true);
      await waitFor(async () => !(await hasOpenTask(userId)), {
        timeoutMs: 60_000,
        what: "the browser task closed at the run's deadline",
      });
      const reply = await replyOf(userId, asked.body.turn_id!, 'the reply after the deadline');
      expect(reply).toMatch(
        /^Out of time: .*Stopped waiting for the user's answer: the run's deadline \(.+\) passed\./s,
      );
      expect(reply).toContain('The browser task was closed');
      const late = await post({ message: currentCode(), user_id: user, reply_to: asked.body.needs_input!.id });
      expect(late.status).toBe(400);
      expect(late.body.error?.message).toMatch(/expired/);
    } finally {
      await updateInstanceSettings(db, { runLimitSeconds: 1800 });
    }
  });

  it('a click that sends a form asks first: a no sends nothing, a yes sends it (the operator, on the webhook)', async () => {
    const steps = (): ScriptStep[] => [
      call('browser_open', { url: `${site}/address` }),
      fill('1', { value: 'Main St 1' }),
      call('browser_click', { ref: '4' }), // Save
      { content: 'Save: {{last_tool_result}}' },
    ];
    const question = new RegExp(
      '^This request read outside text .*May I click an element of the page \\(a form it sends is named\\) ' +
        `\\(ref: 4; sends_form: POST ${site.replace(/[.]/g, '\\.')}/address \\(fields: Street\\); sign_in: false\\)\\?`,
    );
    const no = await script(`[api-form-no-${run}]`, steps());
    const asked = await post({ message: `Save my address ${no}`, user_id: OPERATOR_API_USER_ID });
    expect(asked.body.needs_input?.question, JSON.stringify(asked.body)).toMatch(question);
    const refused = await post({ message: 'no', user_id: OPERATOR_API_USER_ID, reply_to: asked.body.needs_input!.id });
    expect(refused.body.reply).toContain('Not done: the user did not say yes, so browser_click did not run.');

    const yes = await script(`[api-form-yes-${run}]`, steps());
    const again = await post({ message: `Save my address ${yes}`, user_id: OPERATOR_API_USER_ID });
    expect(again.body.needs_input?.question).toMatch(question);
    const saved = await post({ message: 'yes', user_id: OPERATOR_API_USER_ID, reply_to: again.body.needs_input!.id });
    expect(saved.body.reply).toContain('Your address was saved.');
  });

  it('bad input gets a clear tool message: an unknown ref, a refused URL, an unknown login', async () => {
    const marker = await script(`[api-bad-${run}]`, [
      call('browser_open', { url: `${site}/address` }),
      call('browser_click', { ref: '99' }),
      { content: 'Click: {{last_tool_result}}' },
    ]);
    const user = `browser-bad-${run}`;
    const clicked = await post({ message: `Click something ${marker}`, user_id: user });
    expect(clicked.body.reply).toMatch(/ref: there is no element 99 on the page now/);
    expect(clicked.body.reply).not.toMatch(/\n\s+at /);
    const refused = await script(`[api-refused-${run}]`, [
      call('browser_open', { url: `${stack.n8nUrl}/rest/settings` }),
      { content: 'Open: {{last_tool_result}}' },
    ]);
    const opened = await post({ message: `Open n8n ${refused}`, user_id: user });
    expect(opened.body.reply).toMatch(/n8n instance's own API/);
    const unknown = await script(`[api-login-name-${run}]`, [
      call('browser_open', { url: `${site}/login` }),
      fill('2', { login: 'mail', part: 'password' }),
      call('browser_close', {}),
      { content: 'Fill: {{last_tool_result}}' },
    ]);
    await post({ message: `Type my mail password ${unknown}`, user_id: user });
    const filled = JSON.stringify((await llm.requests(unknown)).find((r) => r.step === 2)?.body.messages ?? []);
    // The tool's error comes back through its router as the result's JSON (escaped once per JSON layer).
    expect(filled).toMatch(/no site login named \\+"mail\\+"; the known ones: bank/);
  });

  it("another user cannot have the operator's site login typed, and is told why", async () => {
    const marker = await script(`[api-other-${run}]`, [
      call('browser_open', { url: `${site}/login` }),
      fill('2', { login: LOGIN, part: 'password' }),
      call('browser_snapshot', {}),
      call('browser_close', {}),
      { content: 'Fill: {{last_tool_result}}' },
    ]);
    await post({ message: `Type the bank password ${marker}`, user_id: `browser-other-${run}` });
    const steps = await llm.requests(marker);
    const filled = JSON.stringify(steps.find((r) => r.step === 2)?.body.messages ?? []);
    expect(filled).toMatch(/the site login \\+"bank\\+" belongs to another user/);
    const snapshot = JSON.stringify(steps.find((r) => r.step === 3)?.body.messages?.at(-1) ?? {});
    expect(snapshot).toMatch(/password \\+"Password\\+"/); // (escaped once per JSON layer)
    expect(snapshot).not.toMatch(/\[hidden\]/); // nothing was typed into the password field
  });

  it('the site password is in no log line (n8n, browser service) and no memory', async () => {
    expect(readFileSync(stack.logFile, 'utf8')).not.toContain(E2E_SITE_PASSWORD);
    expect(stack.browserLogFile).not.toBeNull();
    const browserLog = readFileSync(stack.browserLogFile!, 'utf8');
    expect(browserLog).toMatch(/session/); // the service logged the steps
    expect(browserLog).not.toContain(E2E_SITE_PASSWORD);
    const memories = await db.query(`SELECT count(*) FROM assistant.memories WHERE content LIKE $1`, [
      `%${E2E_SITE_PASSWORD}%`,
    ]);
    expect(Number(memories.rows[0].count)).toBe(0);
    // Executions and every other table: the teardown's secret scan (E2E_SECRETS_AT_REST has the password).
  });
});
