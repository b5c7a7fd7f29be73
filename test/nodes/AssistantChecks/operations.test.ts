// The Assistant Checks node's operations on a fresh Postgres 17 through the shared fake IExecuteFunctions, with a
// loopback site allowed through ASSISTANT_OUTBOUND_ALLOW and a loopback judge answering GET /v1/models: a check
// added (or refused: a gate without a working judge, a port not on the allow list), its runs through Run Check and
// Finish Check Run, with and without the Judge gate; list, pause, resume, delete and history.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { claimDueChecks, resolveIdentity } from 'assistant-core';

import { AssistantChecks } from '../../../nodes/AssistantChecks/AssistantChecks.node';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';
import { html, startSite, type FakeSite } from '../../../assistant/test/web/fake-site';

const JUDGE_KEY = 'node-test-judge-key';
let db: NodeDatabase;
let userId: string;
let site: FakeSite;
let judge: FakeSite;
let other: FakeSite;
let pageText = 'Price: 10 EUR';
const saved = { ...process.env };
let clock = new Date('2036-09-01T10:00:00Z').getTime();
const tick = () => new Date((clock += 60_000)).toISOString();

beforeAll(async () => {
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'checks-node')).userId;
  site = await startSite({
    '/item': (request, response) => html(`<html><body><p>${pageText}</p></body></html>`)(request, response),
  });
  other = await startSite({});
  judge = await startSite({
    '/v1/models': (request, response) => {
      const ok = request.headers.authorization === `Bearer ${JUDGE_KEY}`;
      response.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(ok ? { object: 'list', data: [{ id: 'jev-latest', object: 'model' }] } : { error: 'bad key' }),
      );
    },
  });
  process.env = { ...saved, ASSISTANT_OUTBOUND_ALLOW: site.hostPort };
});
afterAll(async () => {
  process.env = { ...saved };
  await Promise.all([site?.close(), judge?.close(), other?.close()]);
  await db?.stop();
});
afterEach(() => {
  pageText = 'Price: 10 EUR';
});

async function run(parameters: Parameters[], credentials: Record<string, unknown> = {}) {
  const [output] = await runNode(new AssistantChecks(), {
    parameters,
    credentials: { postgres: db.credential, ...credentials },
  });
  return output.map((item) => item.json);
}

const judgeCredential = (apiKey = JUDGE_KEY) => ({ systemOneApi: { baseUrl: judge.url, apiKey } });

/** Claims this check's due run (as the tick does) and runs it through the node. */
async function runOnce(checkId: number) {
  const now = tick();
  const due = (await claimDueChecks(db.pool, new Date(now))).find((run) => run.checkId === checkId);
  if (!due) throw new Error('not due');
  const [observed] = await run([{ operation: 'runCheck', runId: due.runId, now }]);
  return observed;
}

describe('Assistant Checks description', () => {
  it('asks for the judge credential only on Add Check, optionally', () => {
    const { description } = nodeVersion(new AssistantChecks());
    expect(description.credentials).toEqual([
      { name: 'postgres', required: true },
      { name: 'systemOneApi', required: false, displayOptions: { show: { operation: ['addCheck'] } } },
    ]);
  });
});

describe('Assistant Checks operations', () => {
  it('refuses a gate without a working judge, and a URL the guard refuses, naming the field', async () => {
    const add = {
      operation: 'addCheck',
      userId,
      what: `${site.url}/item`,
      schedule: 'every minute',
      notifyWhen: 'only if cheaper',
      now: tick(),
    };
    const [noCredential] = await run([add]);
    expect(noCredential).toMatchObject({ ok: false, field: 'notify_when' });
    expect(noCredential.message).toContain('no "System One API" credential is set on this node');
    const [badKey] = await run([add], judgeCredential('wrong'));
    expect(badKey.message).toContain(`the judge at ${judge.url} refused the credential's key (HTTP 401)`);
    const [down] = await run([add], { systemOneApi: { baseUrl: 'http://127.0.0.1:9', apiKey: JUDGE_KEY } });
    expect(down.message).toContain('no judge answers at http://127.0.0.1:9');
    const [refused] = await run([{ ...add, notifyWhen: '', what: `${other.url}/x` }]);
    expect(refused).toMatchObject({ ok: false, field: 'url' });
    expect(refused.message).toContain(`${other.url}/x is refused`);
    expect((await run([{ operation: 'listChecks', userId }]))[0]).toMatchObject({ count: 0 });
  });

  it('runs a check: baseline, unchanged, one notification per change', async () => {
    const [added] = await run([
      { operation: 'addCheck', userId, what: `${site.url}/item`, schedule: 'every minute', now: tick() },
    ]);
    const checkId = (added.check as { id: number }).id;
    expect(await runOnce(checkId)).toMatchObject({ outcome: 'baseline', needsJudge: false });
    expect(await runOnce(checkId)).toMatchObject({ outcome: 'unchanged' });
    pageText = 'Price: 8 EUR';
    const changed = await runOnce(checkId);
    expect(changed).toMatchObject({
      outcome: 'changed',
      needsJudge: false,
      summary: expect.stringContaining('+ Price: 8 EUR'),
    });
    const [finished] = await run([{ operation: 'finishCheckRun', runId: changed.runId, now: tick() }]);
    expect(finished).toMatchObject({ status: 'notified', notified: true });
    const [history] = await run([{ operation: 'checkHistory', userId, checkId, limit: 5 }]);
    expect((history.runs as { status: string }[]).map((r) => r.status)).toEqual(['notified', 'unchanged', 'baseline']);
    // What changed on the site reaches the model marked as outside data.
    expect((history.runs as { summary: string }[])[0].summary).toMatch(
      /^«untrusted ([0-9a-f]{8}) from the checked site»\n[^]*\+ Price: 8 EUR[^]*\n«end \1»$/,
    );
    expect((await run([{ operation: 'changeCheck', userId, checkId, change: 'pause', now: tick() }]))[0]).toMatchObject(
      { check: { status: 'paused' } },
    );
    expect(
      (await run([{ operation: 'changeCheck', userId, checkId, change: 'resume', now: tick() }]))[0],
    ).toMatchObject({ check: { status: 'active' } });
    expect(
      (await run([{ operation: 'changeCheck', userId, checkId, change: 'delete', now: tick() }]))[0],
    ).toMatchObject({ message: `Check ${checkId} is deleted.` });
  });

  it('hands a gated change to the Judge and records its probability beside the decision', async () => {
    const [added] = await run(
      [
        {
          operation: 'addCheck',
          userId,
          what: `${site.url}/item`,
          schedule: 'every minute',
          notifyWhen: 'only if the price drops',
          notifyThreshold: '0.7',
          now: tick(),
        },
      ],
      judgeCredential(),
    );
    expect(added).toMatchObject({ ok: true });
    const checkId = (added.check as { id: number }).id;
    await runOnce(checkId);
    pageText = 'Price: 9 EUR';
    const changed = await runOnce(checkId);
    expect(changed).toMatchObject({ outcome: 'changed', needsJudge: true, judgeThreshold: 0.7 });
    expect(changed.judgeQuestion).toContain('"only if the price drops"');
    expect(changed.judgeState).toContain('+ Price: 9 EUR');
    const [silenced] = await run([
      { operation: 'finishCheckRun', runId: changed.runId, probability: '0.69', now: tick() },
    ]);
    expect(silenced).toMatchObject({
      status: 'silenced',
      judgeProbability: 0.69,
      judgeThreshold: 0.7,
      notified: false,
    });
  });

  it('skips a gated run for budget when the Judge Error Type is budget_exceeded, keeping the change', async () => {
    const [added] = await run(
      [
        {
          operation: 'addCheck',
          userId,
          what: `${site.url}/item`,
          schedule: 'every minute',
          notifyWhen: 'only if the price drops',
          now: tick(),
        },
      ],
      judgeCredential(),
    );
    const checkId = (added.check as { id: number }).id;
    await runOnce(checkId);
    pageText = 'Price: 7 EUR';
    const changed = await runOnce(checkId);
    const judgeError = 'The System One server answered 402: The daily budget of job check is spent.';
    const [skipped] = await run([
      { operation: 'finishCheckRun', runId: changed.runId, judgeError, judgeErrorType: 'budget_exceeded', now: tick() },
    ]);
    expect(skipped).toMatchObject({ status: 'skipped', notified: false, error: `skipped for budget: ${judgeError}` });
    expect(await runOnce(checkId)).toMatchObject({ outcome: 'changed', needsJudge: true });
    const [listed] = await run([{ operation: 'listChecks', userId }]);
    const check = (listed.checks as { id: number; consecutiveFailures: number }[]).find((c) => c.id === checkId);
    expect(check).toMatchObject({ consecutiveFailures: 0, lastError: null });
  });
});
