// The Assistant Browser node's operations through the shared fake IExecuteFunctions, on a real browser service (the
// real Chromium, a temp profiles folder) reached through ASSISTANT_BROWSER_URL and ASSISTANT_BROWSER_KEY as n8n would
// have them, against the fake sign-in site behind a one-time code (assistant/test/browser/login-site.ts), allowed on
// the service's list. The sign-in runs as the model would drive it: refs read from the `result` text, the password
// typed from the Assistant Site Logins credential (never in an item), the code handed over through a question in
// Postgres (Type Answer). Bad input names its field; without the service every item fails naming the variable.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { NodeOperationError, type IDataObject } from 'n8n-workflow';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askUser, receiveMessage, resolveIdentity } from 'assistant-core';
import { createBrowserClient } from 'assistant-core/browser';

import { AssistantBrowser } from '../../../nodes/AssistantBrowser/AssistantBrowser.node';
import { operations } from '../../../nodes/AssistantBrowser/v1/actions/router';
import { nodeVersion, runNode, type Parameters } from '../helpers/executeFunctions';
import { startNodeDatabase, type NodeDatabase } from '../helpers/postgres';
import { startBrowserServer, type BrowserServer } from '../../../assistant/src/browser/server';
import { startLoginSite, type LoginSite } from '../../../assistant/test/browser/login-site';
import { TEST_KEY, testConfig } from '../../../assistant/test/browser/service-config';
import { waitFor } from '../../../scripts/runtime/process';

let db: NodeDatabase;
let site: LoginSite;
let service: BrowserServer;
let profilesDir: string;
/** The assistant user, in the database and as the browser task's owner. */
let userId: string;
const saved = { ...process.env };

beforeAll(async () => {
  site = await startLoginSite();
  profilesDir = await mkdtemp(path.join(os.tmpdir(), 'assistant-browser-node-'));
  const base = testConfig([site.hostPort]);
  service = await startBrowserServer({ config: { ...base, sessions: { ...base.sessions, profilesDir } } });
  db = await startNodeDatabase({ migrated: true });
  userId = (await resolveIdentity(db.pool, 'api', 'browser-node')).userId;
});
afterAll(async () => {
  process.env = { ...saved };
  await service?.close();
  await site?.close();
  await db?.stop();
  if (profilesDir) await rm(profilesDir, { recursive: true, force: true });
});
afterEach(() => {
  process.env = { ...saved };
});

/** The environment n8n runs with when the browser service is set up. */
function useEnv(extra: Record<string, string | undefined> = {}) {
  process.env = { ...saved, ASSISTANT_BROWSER_URL: service.url, ASSISTANT_BROWSER_KEY: TEST_KEY, ...extra };
  for (const [name, value] of Object.entries(extra)) if (value === undefined) delete process.env[name];
}

const LOGIN_NAME = 'Example Bank';
/** The opening mark of a page as outside data (safety/untrusted.ts), as a RegExp source. */
const MARK = '«untrusted [0-9a-f]{8} from the page [^»\\n]+»\\n';
const siteLogins = () => ({
  logins: JSON.stringify([
    { name: LOGIN_NAME, site: site.url, username: site.username, password: site.password, users: ['api:browser-node'] },
    { name: 'mail', site: 'https://mail.example', username: 'ada@mail.example', password: 'mail-secret-9' },
  ]),
});

async function runItems(
  parameters: Parameters[],
  options: { continueOnFail?: boolean; cancelSignal?: AbortSignal } = {},
) {
  const [output] = await runNode(new AssistantBrowser(), {
    parameters,
    credentials: { assistantSiteLoginsApi: siteLogins(), postgres: db.credential },
    ...options,
  });
  return output;
}

async function run(parameters: Parameters[], options: { continueOnFail?: boolean; cancelSignal?: AbortSignal } = {}) {
  return (await runItems(parameters, options)).map((item) => item.json);
}

async function failure(parameters: Parameters[]): Promise<NodeOperationError> {
  const error = await run(parameters).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(NodeOperationError);
  return error as NodeOperationError;
}

/** An element's ref as the model reads it from the page text: `[3] button "Sign in"`. */
function refOf(item: IDataObject, role: string, name: string): number {
  const line = new RegExp(`^\\[(\\d+)\\] ${role} ${JSON.stringify(name)}`, 'm').exec(item.result as string);
  if (!line) throw new Error(`no ${role} "${name}" in:\n${item.result as string}`);
  return Number(line[1]);
}

describe('Assistant Browser description', () => {
  it('has an action for every operation, and shows its credentials only where used', () => {
    const { description } = nodeVersion(new AssistantBrowser());
    expect(description.icon).toBe('file:assistantBrowser.svg');
    const operation = description.properties.find((p) => p.name === 'operation')!;
    const options = operation.options as { value: string; action?: string }[];
    for (const option of options) expect(option.action).toBeTruthy();
    expect(options.map((option) => option.value).sort()).toEqual(Object.keys(operations).sort());
    expect(description.credentials).toEqual([
      { name: 'assistantSiteLoginsApi', required: false, displayOptions: { show: { operation: ['fill'] } } },
      { name: 'postgres', required: true, displayOptions: { show: { operation: ['fill', 'typeAnswer'] } } },
    ]);
  });
});

describe('Assistant Browser: signing in with a stored login and a one-time code', () => {
  /** The last page a step returned, as its item. */
  let page: IDataObject;

  it('opens the sign-in page: its text with numbered elements, no code field', async () => {
    useEnv();
    const [item] = await runItems([{ operation: 'open', userId, url: `${site.url}/login` }]);
    expect(item.pairedItem).toEqual({ item: 0 });
    page = item.json;
    expect(page).toMatchObject({
      url: `${site.url}/login`,
      title: 'Sign in · Example Bank',
      codeField: null,
      codesTyped: 0,
    });
    const result = page.result as string;
    // The page is outside data: marked with a fresh id the page cannot know.
    expect(result).toMatch(
      /^«untrusted ([0-9a-f]{8}) from the page http:\/\/127\.0\.0\.1:\d+\/login»\nPage: Sign in · Example Bank\nURL: http:\/\/127\.0\.0\.1:\d+\/login\n[^]*\n«end \1»$/,
    );
    expect(result).toContain('Sign in to Example Bank');
    expect(result).toContain('Elements (use the number as ref):');
    expect(result).toMatch(/^\[\d+\] textbox "User name"$/m);
    expect(result).toMatch(/^\[\d+\] password "Password"$/m);
    expect(result).toMatch(/^\[\d+\] button "Sign in"$/m);
    expect(result).toMatch(/^Task: 1\/30 pages, \d+\/300 s used\.$/m);
  });

  it('types a value the model gives', async () => {
    useEnv();
    const ref = refOf(page, 'textbox', 'User name');
    [page] = await run([{ operation: 'fill', userId, ref: String(ref), value: site.username }]);
    expect(page.result).toMatch(new RegExp(`^Typed into \\[${ref}\\]\\.\\n\\n${MARK}Page: Sign in`));
    expect(page.result).toContain(`[${ref}] textbox "User name" = "${site.username}"`);
  });

  it('types the password of a site login from the credential; the password is in no item', async () => {
    useEnv();
    const ref = refOf(page, 'password', 'Password');
    const output = await runItems([{ operation: 'fill', userId, ref, login: 'example bank', part: 'password' }]);
    [page] = output.map((item) => item.json);
    expect(page.result).toMatch(
      new RegExp(`^Typed the password of the site login "${LOGIN_NAME}" into \\[${ref}\\]\\.\\n\\n`),
    );
    expect(page.result).toContain(`[${ref}] password "Password" = "[hidden]"`);
    expect(JSON.stringify(output)).not.toContain(site.password);
  });

  it('refuses a value and a login both, an unknown login, and bad or unknown refs, naming the field', async () => {
    useEnv();
    const ref = refOf(page, 'textbox', 'User name');
    const both = await failure([{ operation: 'fill', userId, ref, value: 'x', login: LOGIN_NAME }]);
    expect(both.message).toBe('value: give either a value or a login, not both');
    expect(both.description).toBe('Check the "value" parameter.');
    const unknown = await failure([{ operation: 'fill', userId, ref, login: 'shop' }]);
    expect(unknown.message).toBe(`login: no site login named "shop"; the known ones: ${LOGIN_NAME}`);
    const others = await failure([{ operation: 'fill', userId, ref, login: 'mail', part: 'username' }]);
    expect(others.message).toBe(
      'login: the site login "mail" belongs to another user; the operator can share it (its "users" in Assistant Site Logins)',
    );
    expect(others.description).toBe('Check the "login" parameter.');
    expect(unknown.description).toBe('Check the "login" parameter.');
    const badRef = await failure([{ operation: 'click', userId, ref: 'abc' }]);
    expect(badRef.message).toBe('ref: must be the number of an element in the last page snapshot, e.g. 3');
    const unknownRef = await failure([{ operation: 'click', userId, ref: 99 }]);
    expect(unknownRef.message).toMatch(/^ref: .*take a new snapshot/);
    expect(unknownRef.description).toBe('Check the "ref" parameter.');
    // Nothing was typed by the refused steps.
    const [now] = await run([{ operation: 'snapshot', userId }]);
    expect(now.result).toContain(`[${ref}] textbox "User name" = "${site.username}"`);
  });

  it('Click Target names the sign-in form a click would send, without clicking', async () => {
    useEnv();
    const ref = refOf(page, 'button', 'Sign in');
    const [target] = await run([{ operation: 'clickTarget', userId, ref }]);
    expect(target).toEqual({
      ref,
      sends_form: `POST ${site.url}/login (fields: User name, Password)`,
      form_signature: `POST ${site.url}/login`,
      sign_in: true,
    });
    const refused = await failure([{ operation: 'click', userId, ref, checkForm: true, expectForm: '' }]);
    expect(refused.message).toBe(
      `expectForm: element ${ref} now sends a form (POST ${site.url}/login), not none as looked at; nothing was clicked: take a new snapshot`,
    );
    const [now] = await run([{ operation: 'snapshot', userId }]);
    expect(now.url).toBe(`${site.url}/login`);
  });

  it('clicks Sign in and lands on the code page, with its code field', async () => {
    useEnv();
    const ref = refOf(page, 'button', 'Sign in');
    [page] = await run([{ operation: 'click', userId, ref, checkForm: true, expectForm: `POST ${site.url}/login` }]);
    expect(page.result).toMatch(new RegExp(`^Clicked \\[${ref}\\]\\.\\n\\n${MARK}Page: Two-step verification`));
    expect(page).toMatchObject({ url: `${site.url}/2fa`, title: 'Two-step verification · Example Bank' });
    expect(page.codeField).toEqual({ ref: refOf(page, 'textbox', 'Authentication code'), name: 'Authentication code' });
  });

  it('Code Request asks for the code on that page; a page that is not a step result names `page`', async () => {
    useEnv();
    const [request] = await run([{ operation: 'codeRequest', page }]);
    expect(request).toEqual({
      ask: true,
      ref: (page.codeField as { ref: number }).ref,
      attempt: 1,
      question: `${site.hostPort} asks for a one-time code ("Authentication code"). Reply with the code.`,
    });
    const [fromText] = await run([{ operation: 'codeRequest', page: JSON.stringify({ ...page, codeField: null }) }]);
    expect(fromText).toEqual({ ask: false, reason: 'no_code_field' });
    const bad = await run(
      [
        { operation: 'codeRequest', page: { url: page.url } },
        { operation: 'codeRequest', page: '{not json' },
        { operation: 'codeRequest', page: null },
      ],
      { continueOnFail: true },
    );
    expect(bad).toEqual([
      { error: 'page: must be what a browser step returned ({url, codeField, codesTyped})', field: 'page' },
      { error: 'page: is not JSON', field: 'page' },
      { error: 'page: must be what a browser step returned ({url, codeField, codesTyped})', field: 'page' },
    ]);
  });

  it('pauses the task for the user', async () => {
    useEnv();
    const [paused] = await run([{ operation: 'pauseTask', userId }]);
    expect(paused).toMatchObject({ waiting: true, task: { pages: 2, maxPages: 30, codesTyped: 0 } });
  });

  it('Type Answer types the code the user sent, never showing it; Verify reaches the account', async () => {
    useEnv();
    const [turn] = await run([{ operation: 'snapshot', userId }]);
    expect(turn.url).toBe(`${site.url}/2fa`);
    const question = await askUser(db.pool, userId, { kind: 'one_time_code', question: 'The code, please?' });
    const code = site.currentCode();
    const answered = await receiveMessage(db.pool, userId, {
      message: ` ${code.slice(0, 3)} ${code.slice(3)} `,
      replyTo: question.id,
    });
    expect(answered).toMatchObject({ kind: 'answer', questionId: question.id });
    const codeRef = (page.codeField as { ref: number }).ref;
    const output = await runItems([{ operation: 'typeAnswer', userId, questionId: question.id, ref: codeRef }]);
    [page] = output.map((item) => item.json);
    expect(page).toMatchObject({ typed: true, codesTyped: 1, url: `${site.url}/2fa` });
    expect(page.result).toMatch(new RegExp(`^Typed the code the user sent into \\[${codeRef}\\]\\.\\n\\n`));
    expect(page.result).toContain(`[${codeRef}] textbox "Authentication code" = "[hidden]"`);
    expect(JSON.stringify(output)).not.toContain(code);
    const [account] = await run([{ operation: 'click', userId, ref: refOf(page, 'button', 'Verify') }]);
    expect(account).toMatchObject({
      url: `${site.url}/account`,
      title: 'Your account · Example Bank',
      codeField: null,
    });
    expect(account.result).toContain(`Signed in as ${site.username}`);
  });

  it('Type Answer on an expired question types nothing and says so', async () => {
    useEnv();
    const expired = await askUser(db.pool, userId, {
      kind: 'one_time_code',
      question: 'Code?',
      expiresInSeconds: 5,
      now: new Date(Date.now() - 60_000),
    });
    const [item] = await run([{ operation: 'typeAnswer', userId, questionId: expired.id, ref: 1 }]);
    expect(item).toEqual({
      typed: false,
      result: 'The user did not send the code in time; the question expired. Tell them, and try again if they want.',
    });
  });

  it('takes a screenshot as a base64 PNG, for the user', async () => {
    useEnv();
    const [shot] = await run([{ operation: 'screenshot', userId }]);
    expect(shot).toMatchObject({ fileName: 'screenshot.png', mimeType: 'image/png', url: `${site.url}/account` });
    expect(shot.png as string).toMatch(/^iVBORw0KGgo/);
    expect(
      Buffer.from(shot.png as string, 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(shot.result).toMatch(
      new RegExp(`^Took a screenshot of the page; it goes to the user\\.\\n\\n${MARK}Page: Your account`),
    );
  });

  it('closes the task; closing again finds none, and a step then needs a new open', async () => {
    useEnv();
    expect(await run([{ operation: 'close', userId }])).toEqual([
      { closed: true, result: 'Closed the browser; the sign-ins are kept for next time.' },
    ]);
    expect(await run([{ operation: 'close', userId }])).toEqual([
      { closed: false, result: 'No browser task was open.' },
    ]);
    const none = await failure([{ operation: 'snapshot', userId }]);
    expect(none.message).toContain('there is no open task for this user: open a page first');
  });
});

describe('Assistant Browser: the run stops, or its deadline passes', () => {
  const client = () => createBrowserClient({ url: service.url, key: TEST_KEY });
  const openTaskOf = async (user: string) => (await client().session.tasks()).tasks.some((t) => t.user === user);
  const openTask = async (user: string) => {
    await run([{ operation: 'open', userId: user, url: `${site.url}/login` }]);
    expect(await openTaskOf(user)).toBe(true);
  };

  it('a step whose deadline has passed closes the task and says why', async () => {
    useEnv();
    const user = randomUUID();
    await openTask(user);
    const deadline = new Date(Date.now() - 1000).toISOString();
    const error = await failure([{ operation: 'snapshot', userId: user, deadline }]);
    expect(error.message).toBe(
      `the run's deadline (${deadline}) passed before the browser step finished; the browser task was closed`,
    );
    expect(await openTaskOf(user)).toBe(false);
  });

  it('a deadline that passes while Type Answer waits for the code closes the task', async () => {
    useEnv();
    const user = (await resolveIdentity(db.pool, 'api', `browser-deadline-${randomUUID()}`)).userId;
    await openTask(user);
    const question = await askUser(db.pool, user, { kind: 'one_time_code', question: 'The code, please?' });
    const deadline = new Date(Date.now() + 500).toISOString();
    const started = Date.now();
    const error = await failure([{ operation: 'typeAnswer', userId: user, questionId: question.id, ref: 1, deadline }]);
    expect(Date.now() - started).toBeLessThan(10_000); // not the question's 5 minutes
    expect(error.message).toMatch(
      /^the run's deadline \(.+\) passed before the browser step finished; the browser task was closed$/,
    );
    expect(await openTaskOf(user)).toBe(false);
  });

  it('stopping the execution closes the task a step of it used, even after the step', async () => {
    useEnv();
    const user = randomUUID();
    const execution = new AbortController();
    const [page] = await run([{ operation: 'open', userId: user, url: `${site.url}/login` }], {
      cancelSignal: execution.signal,
    });
    expect(page.url).toBe(`${site.url}/login`);
    expect(await openTaskOf(user)).toBe(true);
    execution.abort(); // n8n stops the execution while a later node (the code hand-off) waits
    await waitFor(async () => !(await openTaskOf(user)), { timeoutMs: 10_000, what: 'the task closed' });
  });

  it('a step of a stopped execution does not run, and names why', async () => {
    useEnv();
    const user = randomUUID();
    await openTask(user);
    const [item] = await run([{ operation: 'snapshot', userId: user }], {
      cancelSignal: AbortSignal.abort(),
      continueOnFail: true,
    });
    expect(item).toEqual({
      error: 'the run was stopped before the browser step finished; the browser task was closed',
    });
    expect(await openTaskOf(user)).toBe(false);
  });

  it('a deadline that is not a time names the field', async () => {
    useEnv();
    const error = await failure([{ operation: 'snapshot', userId, deadline: 'tomorrow' }]);
    expect(error.message).toBe('deadline: must be a time in ISO 8601, e.g. 2026-11-28T18:30:00Z');
    expect(error.description).toBe('Check the "deadline" parameter.');
  });
});

describe('Assistant Browser without a task or a service', () => {
  it('a step with no open task fails with a clear error', async () => {
    useEnv();
    const [item] = await run([{ operation: 'click', userId: randomUUID(), ref: 1 }], { continueOnFail: true });
    expect(item).toEqual({ error: 'there is no open task for this user: open a page first' });
  });

  it('fails every item naming ASSISTANT_BROWSER_URL when the service is not set up', async () => {
    useEnv({ ASSISTANT_BROWSER_URL: undefined });
    const message =
      'ASSISTANT_BROWSER_URL: is not set: the browser service is not running (it needs Chromium; see docs/WEB.md)';
    const output = await run(
      [
        { operation: 'open', userId, url: `${site.url}/login` },
        { operation: 'snapshot', userId },
      ],
      { continueOnFail: true },
    );
    expect(output).toEqual([
      { error: message, field: 'ASSISTANT_BROWSER_URL' },
      { error: message, field: 'ASSISTANT_BROWSER_URL' },
    ]);
    const error = await failure([{ operation: 'snapshot', userId }]);
    expect(error.message).toBe(message);
    expect(error.description).toBe('Check the "ASSISTANT_BROWSER_URL" parameter.');
    useEnv({ ASSISTANT_BROWSER_KEY: ' ' });
    expect((await failure([{ operation: 'snapshot', userId }])).message).toBe(
      'ASSISTANT_BROWSER_KEY: is not set: the browser service needs its key',
    );
  });

  it('decides on a code without the service: Code Request never calls it', async () => {
    useEnv({ ASSISTANT_BROWSER_URL: undefined });
    const page = { url: 'https://bank.example/2fa', codeField: { ref: 1, name: 'Code' }, codesTyped: 0 };
    const [item] = await run([{ operation: 'codeRequest', page }]);
    expect(item).toMatchObject({ ask: true, ref: 1, attempt: 1 });
  });

  it('with Continue On Fail, reports bad input per item as {error, field} and carries on', async () => {
    useEnv();
    const user = randomUUID();
    const [opened] = await run([{ operation: 'open', userId: user, url: `${site.url}/login` }]);
    const ref = refOf(opened, 'textbox', 'User name');
    const output = await runItems(
      [
        { operation: 'fill', userId: user, ref: 'abc', value: 'x' },
        { operation: 'fill', userId: user, ref, value: 'x', login: LOGIN_NAME },
        { operation: 'fill', userId: user, ref, login: 'nope' },
        { operation: 'fill', userId: user, ref: 99, value: 'x' },
        { operation: 'fill', userId: user, ref },
        { operation: 'fill', userId: user, ref, value: 'grace' },
      ],
      { continueOnFail: true },
    );
    expect(output.map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4, 5].map((item) => ({ item })));
    const json = output.map((item) => item.json);
    expect(json.slice(0, 5).map((item) => item.field)).toEqual(['ref', 'value', 'login', 'ref', 'value']);
    for (const item of json.slice(0, 5)) expect(Object.keys(item).sort()).toEqual(['error', 'field']);
    expect(json[2].error).toBe(
      'login: no site login named "nope"; none is shared with you (the "users" of Assistant Site Logins)',
    );
    expect(json[4].error).toBe('value: give a value to type, or the name of a login');
    expect(output.slice(0, 5).every((item) => item.error instanceof NodeOperationError)).toBe(true);
    expect(json[5].result).toContain(`[${ref}] textbox "User name" = "grace"`);
    expect(await run([{ operation: 'close', userId: user }])).toMatchObject([{ closed: true }]);
  });
});
