// Capture on the real n8n + Postgres 17: the memory capture workflow's real Schedule Trigger fires every minute and
// reads the conversations idle for captureIdleMinutes (1 here; the run keeps capture off elsewhere), through the model
// gateway to the chat fake, whose extractor answers the record_extraction call. Three plain messages that call no tool
// leave two people, a company, their relations and the superseded fact, and "who is my accountant?" is answered from
// the context block with no tool call; a repeat is dropped; a fact from a turn that read a page is stored unconfirmed;
// an extraction that fails validation twice is dropped and recorded as a capture failure.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveIdentity, runMigrations, updateInstanceSettings } from 'assistant-core';
import { waitFor } from '../../scripts/runtime/process';
import { OpenAiChatFakeControl, type ScriptStep } from '../fakes/openai-chat';
import { WebSiteControl } from '../fakes/web-site';
import { configureAssistantCredentials, postToAgent } from './setup/assistant';
import { e2eStack, type E2EStack } from './setup/harness';
import { viaRouter } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let site: WebSiteControl;
let db: Pool;

const FIRST = 'Stefan Huber from Huber & Partner is my accountant';
const SECOND = 'Anna Berger replaces Stefan as my accountant from March';
const THIRD = "Anna's number is +43 660 1234567";

const users = {
  accountant: `capture-accountant-${run}`,
  page: `capture-page-${run}`,
  bad: `capture-bad-${run}`,
};
const userIds: Record<keyof typeof users, string> = { accountant: '', page: '', bad: '' };

async function say(user: string, message: string, steps?: ScriptStep[]): Promise<string | undefined> {
  if (steps) await llm.addScript(message, steps);
  const answer = await postToAgent<{ reply?: string }>(stack, { message, user_id: user });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.reply;
}

/** Every session but these users' counts as captured: capture reads only this file's conversations. */
async function onlyTheseToCapture(): Promise<void> {
  await db.query(
    `INSERT INTO assistant.capture_cursors (user_id, session_id, last_turn_id)
       SELECT user_id, session_id, max(id) FROM assistant.turns WHERE NOT (user_id = ANY($1::uuid[])) GROUP BY 1, 2
     ON CONFLICT (user_id, session_id) DO UPDATE SET last_turn_id = EXCLUDED.last_turn_id`,
    [Object.values(userIds)],
  );
}

/** Waits until capture has read every turn of the user (bounded: the idle minute and two trigger runs). */
async function captured(userId: string): Promise<void> {
  await waitFor(
    async () => {
      const found = await db.query(
        `SELECT 1 FROM assistant.turns t WHERE t.user_id = $1 AND NOT EXISTS (
           SELECT 1 FROM assistant.capture_cursors c
            WHERE c.user_id = t.user_id AND c.session_id = t.session_id AND c.last_turn_id >= t.id)`,
        [userId],
      );
      return found.rowCount === 0;
    },
    { timeoutMs: 240_000, intervalMs: 2_000, what: `capture of ${userId}'s conversation` },
  );
}

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  site = new WebSiteControl(stack.fakeUrls.E2E_WEB_SITE_URL);
  await configureAssistantCredentials(stack);
  db = new Pool({ connectionString: stack.postgresUrl, max: 2 });
  await runMigrations(db);

  // Three plain messages (no tool: the fake echoes them), a turn that reads a page, and one the extractor spoils.
  for (const message of [FIRST, SECOND, THIRD]) await say(users.accountant, message);
  await say(users.accountant, THIRD); // said again: a duplicate
  await site.setPage(`capture-${run}`, { body: '<html><body><p>Opening hours: 9 to 5.</p></body></html>' });
  const pageMessage = `Read ${site.watchUrl(`capture-${run}`)} please. Bob Stone is my lawyer [capture-page-${run}]`;
  await say(users.page, pageMessage, [
    { tool_calls: [viaRouter('read_page', { url: site.watchUrl(`capture-${run}`), max_chars: '' })] },
    { content: 'Read it: {{last_tool_result}}' },
  ]);
  await say(users.bad, 'Clara Stein is my doctor [bad-extraction]');
  for (const key of Object.keys(users) as Array<keyof typeof users>) {
    userIds[key] = (await resolveIdentity(db, 'api', users[key])).userId;
  }
  await onlyTheseToCapture();
  await updateInstanceSettings(db, { captureIdleMinutes: 1 });
  await Promise.all(Object.values(userIds).map(captured));
}, 360_000);

afterAll(async () => {
  await updateInstanceSettings(db, { captureIdleMinutes: 0 }).catch(() => undefined);
  await db?.end();
});

describe('capture by the real minute trigger', () => {
  it('three plain messages leave two people, a company, their relations and the superseded fact', async () => {
    const userId = userIds.accountant;
    const entities = await db.query('SELECT name, type FROM assistant.entities WHERE user_id = $1 ORDER BY name', [
      userId,
    ]);
    expect(entities.rows.map((row) => `${row.name}:${row.type}`)).toEqual([
      'Anna Berger:person',
      'Huber & Partner:company',
      'Stefan Huber:person',
      'the user:person',
    ]);
    const relations = await db.query(
      `SELECT f.name AS "from", r.type, t.name AS "to", r.valid_to IS NULL AS current FROM assistant.relations r
         JOIN assistant.entities f ON f.id = r.from_entity_id JOIN assistant.entities t ON t.id = r.to_entity_id
        WHERE r.user_id = $1 ORDER BY r.id`,
      [userId],
    );
    expect(relations.rows.map((r) => `${r.from} ${r.type} ${r.to}${r.current ? '' : ' (ended)'}`)).toEqual([
      'Stefan Huber accountant_of the user (ended)',
      'Stefan Huber works_at Huber & Partner',
      'Anna Berger accountant_of the user',
    ]);
    const memories = await db.query(
      `SELECT m.content, s.content AS superseded_by FROM assistant.memories m
         LEFT JOIN assistant.memories s ON s.id = m.superseded_by WHERE m.user_id = $1 ORDER BY m.id`,
      [userId],
    );
    // The number said again was a duplicate of the current fact: nothing new was stored for it.
    expect(memories.rows).toEqual([
      { content: FIRST, superseded_by: SECOND },
      { content: SECOND, superseded_by: null },
      { content: THIRD, superseded_by: null },
    ]);
    const calls = await db.query(
      `SELECT count(*)::int AS n FROM assistant.model_calls WHERE job = 'capture' AND user_id = $1`,
      [userId],
    );
    expect(calls.rows[0].n).toBeGreaterThanOrEqual(1);
  });

  it('"who is my accountant?" is answered from the context block, with no tool call', async () => {
    const marker = `[who-${run}]`;
    const reply = await say(users.accountant, `Who is my accountant? ${marker}`, [{ content: 'From what I know.' }]);
    expect(reply).toBe('From what I know.');
    const [request] = await llm.requests(marker);
    const prompt = JSON.stringify(request.body.messages);
    expect(prompt).toContain('Anna Berger accountant of the user');
    expect(prompt).not.toContain('Stefan Huber accountant of the user');
  });

  it('a fact from a turn that read a page is stored unconfirmed, its graph items held', async () => {
    const memories = await db.query('SELECT content, confirmed FROM assistant.memories WHERE user_id = $1', [
      userIds.page,
    ]);
    expect(memories.rows).toEqual([{ content: expect.stringContaining('Bob Stone is my lawyer'), confirmed: false }]);
    const entities = await db.query(`SELECT name FROM assistant.entities WHERE user_id = $1 AND name = 'Bob Stone'`, [
      userIds.page,
    ]);
    expect(entities.rows).toEqual([]);
  });

  it('an extraction that fails validation twice is dropped and recorded as a capture failure', async () => {
    const failures = await db.query(
      `SELECT message, count FROM assistant.failures WHERE source = 'capture' AND user_id = $1`,
      [userIds.bad],
    );
    expect(failures.rows).toEqual([{ message: expect.stringMatching(/dropped/i), count: 1 }]);
    const memories = await db.query('SELECT count(*)::int AS n FROM assistant.memories WHERE user_id = $1', [
      userIds.bad,
    ]);
    expect(memories.rows[0].n).toBe(0);
  });
});
