// Silent background checks on the real n8n + Postgres 17, run by the tick workflow (a fast copy of it, every 5 s;
// setup/fast-tick.ts) against pages the test changes on the loopback web site; before each step the test makes its
// checks due, as their "every minute" schedule would a minute later: a page → exactly one notification per change and none while it stays the same;
// a feed gaining two items → one notification naming both; a JSON value crossing its threshold; the Judge gate
// through the real judge server (the same change, one check notified and one silenced by their thresholds, the
// probability recorded); a site answering 500 → a failure row the agent names when asked "did anything fail
// today?"; and bad input refused with a clear tool message. Each step waits for ticks, never asserts a duration.
import { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCheck, resolveIdentity, runMigrations } from 'assistant-core';
import { OpenAiChatFakeControl } from '../fakes/openai-chat';
import { WebSiteControl } from '../fakes/web-site';
import { e2eStack, type E2EStack } from './setup/harness';
import { E2E_ASSISTANT_API_KEY } from './setup/secrets';
import { waitFor } from '../../scripts/runtime/process';
import { postgresCredentialData } from './setup/postgres-credential';
import { startFastTick } from './setup/fast-tick';
import { viaRouter } from './setup/tool-calls';

const run = Math.random().toString(36).slice(2, 8);
const USER = `checks-${run}`;
/** A few ticks: generous, so the test ends, never a timing assertion. */
const FEW_TICKS_MS = 4 * 60_000;

let stack: E2EStack;
let llm: OpenAiChatFakeControl;
let site: WebSiteControl;
let db: Pool;
let userId: string;
let stopFastTick: (() => Promise<void>) | undefined;
const ids: Record<string, number> = {};

const page = (name: string) => `${name}-${run}`;
const htmlPage = (lines: string[]) => ({
  body: `<!DOCTYPE html><html><head><title>Watched</title></head><body><main>${lines.map((l) => `<p>${l}</p>`).join('')}</main></body></html>`,
});
const feed = (items: string[]) => ({
  contentType: 'application/rss+xml',
  body: `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title>${items
    .map((t) => `<item><title>${t}</title><link>https://news.test/${t.replace(/\W+/g, '-')}</link></item>`)
    .join('')}</channel></rss>`,
});
const price = (value: number) => ({
  contentType: 'application/json',
  body: JSON.stringify({ data: { price: value } }),
});

/** add_check's arguments as a model gives them: every field, the unused ones empty. */
const addArgs = (given: Record<string, string>) => ({
  what: '',
  schedule: '',
  notify_when: '',
  kind: '',
  selector: '',
  path: '',
  condition: '',
  threshold: '',
  notify_threshold: '',
  ...given,
});

async function ask(marker: string, message: string): Promise<string> {
  const response = await stack.webhook('agent', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': E2E_ASSISTANT_API_KEY },
    body: JSON.stringify({ message: `${message} ${marker}`, user_id: USER }),
  });
  const body = (await response.json()) as { reply: string };
  if (response.status !== 200) {
    // What failed, from n8n's saved failed executions, so a failure here says why.
    const failed = await stack.api<{ data: Array<{ workflowId: string; data?: unknown }> }>(
      '/executions?status=error&limit=3&includeData=true',
    );
    const errors = failed.data.map((e) => `${e.workflowId}: ${JSON.stringify(e.data).match(/"message":"[^"]*"/g)}`);
    const turn = await db.query(`SELECT error FROM assistant.turns WHERE id = $1`, [
      (body as { turn_id?: number }).turn_id ?? 0,
    ]);
    errors.unshift(`turn error: ${turn.rows[0]?.error}`);
    expect.fail(`POST /webhook/agent answered ${response.status} ${JSON.stringify(body)}; ${errors.join(' | ')}`);
  }
  return body.reply;
}

interface RunRow {
  id: string;
  status: string;
  summary: string | null;
  judge_probability: number | null;
  judge_threshold: number | null;
  error: string | null;
}

const runsOf = async (checkId: number) =>
  (
    await db.query<RunRow>(
      `SELECT id, status, summary, judge_probability, judge_threshold, error FROM assistant.check_runs
        WHERE check_id = $1 ORDER BY id`,
      [checkId],
    )
  ).rows;

const notices = async (checkId: number) =>
  (
    await db.query<{ text: string }>(
      `SELECT text FROM assistant.outbox WHERE user_id = $1 AND kind = 'check' AND (data->>'check_id')::int = $2 ORDER BY id`,
      [userId, checkId],
    )
  ).rows.map((row) => row.text);

/** Makes every check of the user due now, instead of waiting for its next minute; the tick still claims and runs it. */
const makeDue = () =>
  db.query(`UPDATE assistant.checks SET next_run_at = now() WHERE user_id = $1 AND status = 'active'`, [userId]);

/** Waits until every named check has a finished run after `afterRunId` (baseline, unchanged, notified, …). */
async function nextRuns(names: string[], after: Record<string, number>, what: string): Promise<Record<string, RunRow>> {
  const found: Record<string, RunRow> = {};
  await makeDue();
  await waitFor(
    async () => {
      for (const name of names) {
        const done = (await runsOf(ids[name])).filter(
          (r) => Number(r.id) > (after[name] ?? 0) && !['running', 'changed'].includes(r.status),
        );
        if (done[0]) found[name] = done[0];
      }
      return names.every((name) => found[name]);
    },
    { timeoutMs: FEW_TICKS_MS, what },
  );
  return found;
}

const lastRunIds = async (names: string[]) =>
  Object.fromEntries(await Promise.all(names.map(async (n) => [n, Number((await runsOf(ids[n])).at(-1)?.id ?? 0)])));

beforeAll(async () => {
  stack = e2eStack();
  llm = new OpenAiChatFakeControl(stack.fakeUrls.E2E_OPENAI_CHAT_URL);
  site = new WebSiteControl(stack.fakeUrls.E2E_WEB_SITE_URL);
  await stack.api('/credentials/asstPostgresDb01', {
    method: 'PATCH',
    body: { data: postgresCredentialData(stack.postgresUrl) },
  });
  db = new Pool({ connectionString: stack.postgresUrl, max: 3 });
  await runMigrations(db);
  await stack.api('/credentials/asstApiKeyHdr001', {
    method: 'PATCH',
    body: { data: { name: 'X-API-Key', value: E2E_ASSISTANT_API_KEY } },
  });
  userId = (await resolveIdentity(db, 'api', USER)).userId;
  await site.setPage(page('page'), htmlPage(['Opening hours: 9 to 17', 'Tickets: 12 EUR']));
  await site.setPage(page('feed'), feed(['First post', 'Second post']));
  await site.setPage(page('price'), price(55));
  await site.setPage(page('gate'), htmlPage(['Version 1.0 released']));
  await site.setPage(page('broken'), { status: 500, body: 'internal error' });
  stopFastTick = await startFastTick(stack, `E2E fast tick for checks ${run}`);
});

afterAll(async () => {
  await stopFastTick?.();
  await db?.query(`DELETE FROM assistant.checks WHERE user_id = $1`, [userId]).catch(() => undefined);
  await db?.end();
});

describe('background checks', () => {
  it('the agent adds checks (a gated one through the real judge probe) and bad input gets a clear tool message', async () => {
    const marker = `[checks-add-${run}]`;
    await llm.addScript(marker, [
      {
        tool_calls: [viaRouter('add_check', addArgs({ what: 'ftp://files.test/list', schedule: 'every minute' }))],
      },
      {
        tool_calls: [viaRouter('add_check', addArgs({ what: 'http://127.0.0.1:9/admin', schedule: 'every minute' }))],
      },
      {
        tool_calls: [viaRouter('add_check', addArgs({ what: site.watchUrl(page('page')), schedule: 'now and then' }))],
      },
      {
        tool_calls: [viaRouter('add_check', addArgs({ what: site.watchUrl(page('page')), schedule: 'every minute' }))],
      },
      {
        tool_calls: [
          viaRouter(
            'add_check',
            addArgs({
              what: site.watchUrl(page('gate')),
              schedule: 'every minute',
              notify_when: 'only if it is a major release',
              notify_threshold: '0.00001',
            }),
          ),
        ],
      },
      { content: 'Done: {{last_tool_result}}' },
    ]);
    const reply = await ask(marker, 'Watch these pages for me');
    expect(reply).toMatch(/^Done: .*Check \d+ added: the page .*only when the Judge finds it meets/s);
    const requests = await llm.requests(marker);
    const toolResult = (step: number) =>
      JSON.stringify(requests.find((r) => r.step === step)?.body.messages?.at(-1) ?? '');
    expect(toolResult(1)).toContain('only http and https addresses can be checked');
    expect(toolResult(2)).toMatch(/127\.0\.0\.1:9\/admin is refused/);
    expect(toolResult(3)).toContain('Try, for example');
    const checks = (
      await db.query<{ id: string; target: string; notify_when: string | null }>(
        `SELECT id, target, notify_when FROM assistant.checks WHERE user_id = $1 ORDER BY id`,
        [userId],
      )
    ).rows;
    expect(checks.map((c) => [c.target, c.notify_when])).toEqual([
      [site.watchUrl(page('page')), null],
      [site.watchUrl(page('gate')), 'only if it is a major release'],
    ]);
    ids.page = Number(checks[0].id);
    ids.gateLow = Number(checks[1].id);

    // The rest straight into the store, as the tool would add them.
    const add = async (input: Parameters<typeof addCheck>[2]) => {
      const result = await addCheck(db, userId, { schedule: 'every minute', ...input }, new Date(), {
        judgeProblem: async () => null,
      });
      if (!result.ok) throw new Error(result.message);
      return result.check.id;
    };
    ids.feed = await add({ what: site.watchUrl(page('feed')), kind: 'feed' });
    ids.price = await add({
      what: site.watchUrl(page('price')),
      path: 'data.price',
      condition: 'below',
      threshold: 50,
    });
    ids.gateHigh = await add({
      what: site.watchUrl(page('gate')),
      notifyWhen: 'only if it is a major release',
      notifyThreshold: 0.99999,
    });
    ids.broken = await add({ what: site.watchUrl(page('broken')) });
  });

  it(
    'the first runs record baselines silently, the next ones find nothing new',
    async () => {
      const names = ['page', 'feed', 'price', 'gateLow', 'gateHigh'];
      const first = await nextRuns(names, {}, 'the baselines');
      for (const name of names) expect(first[name].status, name).toBe('baseline');
      const second = await nextRuns(names, await lastRunIds(names), 'a run with nothing new');
      for (const name of names) expect(second[name].status, name).toBe('unchanged');
      for (const name of names) expect(await notices(ids[name]), name).toEqual([]);
    },
    2 * FEW_TICKS_MS + 30_000,
  );

  it(
    'speaks once per real change: a page, two feed items, a value crossing its threshold, the Judge gate',
    async () => {
      const names = ['page', 'feed', 'price', 'gateLow', 'gateHigh'];
      const before = await lastRunIds(names);
      await site.setPage(page('page'), htmlPage(['Opening hours: 9 to 18', 'Tickets: 12 EUR']));
      await site.setPage(page('feed'), feed(['Fourth post', 'Third post', 'First post', 'Second post']));
      await site.setPage(page('price'), price(48));
      await site.setPage(page('gate'), htmlPage(['Version 2.0 released']));
      const changed = await nextRuns(names, before, 'the runs after the changes');
      expect(changed.page.status).toBe('notified');
      expect(await notices(ids.page)).toEqual([
        `🔔 Check ${ids.page} (${site.watchUrl(page('page'))}): The page changed: 1 line added, 1 removed.\n` +
          '+ Opening hours: 9 to 18\n− Opening hours: 9 to 17',
      ]);
      const [feedNotice] = await notices(ids.feed);
      expect(await notices(ids.feed)).toHaveLength(1);
      expect(feedNotice).toContain('2 new items:');
      expect(feedNotice).toContain('• Fourth post — https://news.test/Fourth-post');
      expect(feedNotice).toContain('• Third post — https://news.test/Third-post');
      expect(await notices(ids.price)).toEqual([
        `🔔 Check ${ids.price} (${site.watchUrl(page('price'))}): data.price went below 50: 55 → 48.`,
      ]);
      // The same change asked of the real judge server: one probability, two thresholds, two decisions. The fake
      // upstream's label weights are (1..256)², so a probability lies within [1.2e-5, 1 - 1.2e-5] whatever the prompt.
      const low = changed.gateLow;
      const high = changed.gateHigh;
      expect(low.judge_probability).toBeGreaterThan(0.00001);
      expect(low.judge_probability).toBeLessThan(0.99999);
      expect(high.judge_probability).toBe(low.judge_probability);
      expect([low.status, low.judge_threshold]).toEqual(['notified', 0.00001]);
      expect([high.status, high.judge_threshold]).toEqual(['silenced', 0.99999]);
      expect(await notices(ids.gateLow)).toHaveLength(1);
      expect(await notices(ids.gateHigh)).toEqual([]);

      // Nothing changes: nothing more is said. Then a second change: exactly one more notification.
      const quiet = await nextRuns(
        ['page', 'feed', 'price'],
        await lastRunIds(['page', 'feed', 'price']),
        'quiet runs',
      );
      expect(Object.values(quiet).map((r) => r.status)).toEqual(['unchanged', 'unchanged', 'unchanged']);
      const beforeSecond = await lastRunIds(['page']);
      await site.setPage(page('page'), htmlPage(['Opening hours: 9 to 18', 'Tickets: 14 EUR']));
      const second = await nextRuns(['page'], beforeSecond, 'the run after the second change');
      expect(second.page.status).toBe('notified');
      const pageNotices = await notices(ids.page);
      expect(pageNotices).toHaveLength(2);
      expect(pageNotices[1]).toContain('+ Tickets: 14 EUR');
    },
    3 * FEW_TICKS_MS + 30_000,
  );

  it('a site answering 500 is a failure the agent names when asked "did anything fail today?"', async () => {
    const runs = await runsOf(ids.broken);
    expect(runs.length).toBeGreaterThan(1);
    expect(runs.every((r) => r.status === 'failed' || r.status === 'running')).toBe(true);
    expect(runs[0].error).toBe(`${site.watchUrl(page('broken'))} answered HTTP 500 Internal Server Error`);
    const failures = (
      await db.query<{ workflow: string }>(
        `SELECT workflow FROM assistant.failures WHERE user_id = $1 AND source = 'check'`,
        [userId],
      )
    ).rows;
    // One row for the streak, not one per run.
    expect(failures).toEqual([{ workflow: `check ${ids.broken} (${site.watchUrl(page('broken'))})` }]);
    const marker = `[checks-failed-${run}]`;
    await llm.addScript(marker, [
      { tool_calls: [viaRouter('list_failures', { since: '' })] },
      { content: 'Failures: {{last_tool_result}}' },
    ]);
    const reply = await ask(marker, 'Did anything fail today?');
    expect(reply).toContain(`check (check ${ids.broken} (${site.watchUrl(page('broken'))}))`);
    expect(reply).toContain('answered HTTP 500');
  });
});
