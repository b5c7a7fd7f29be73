// The browser service's per-user sessions with the real Chromium, against a loopback site with a sign-in behind a
// TOTP code (login-site.ts): open, snapshot, fill, click and select through the sign-in to the account page; the code
// field spotted (and a postal code not taken for one); secrets never shown nor logged, and refused on another site;
// unknown refs, steps without a task, bad requests; the limits (pages, active time with the time waiting for the
// user left out, users at once, idle tasks); the profile on disk (mode 0600) surviving a restart of the service; a
// form drawn by script sent; the guard refusing a page.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BrowserServiceError, createBrowserClient, type BrowserClient } from '../../src/browser/client';
import type { BrowserServiceConfig, SessionSettings } from '../../src/browser/config';
import { BROWSER_KEY_HEADER, type SessionElement, type SessionPage } from '../../src/browser/protocol';
import { startBrowserServer, type BrowserServer } from '../../src/browser/server';
import { html, startSite, type FakeSite } from '../web/fake-site';
import { startLoginSite, totp, type LoginSite } from './login-site';
import { TEST_KEY as KEY, testConfig } from './service-config';

let site: LoginSite;
let profilesDir: string;
let service: BrowserServer;
let client: BrowserClient;
const logLines: string[] = [];
/** Every page any step answered, to look for secrets in. */
const answers: unknown[] = [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function config(dir: string, sessions: Partial<SessionSettings> = {}): BrowserServiceConfig {
  const base = testConfig([site.hostPort]);
  return { ...base, sessions: { ...base.sessions, profilesDir: dir, ...sessions } };
}

async function start(dir: string, sessions: Partial<SessionSettings> = {}) {
  const server = await startBrowserServer({ config: config(dir, sessions), log: (line) => logLines.push(line) });
  return { server, client: createBrowserClient({ url: server.url, key: KEY }) };
}

/** The session calls, each answer kept for the secrets check. */
const keep = <T>(answer: T): T => {
  answers.push(answer);
  return answer;
};

function element(page: SessionPage, role: string, name: string): SessionElement {
  const found = page.elements.find((item) => item.role === role && item.name === name);
  if (!found) throw new Error(`no ${role} "${name}" in ${JSON.stringify(page.elements)}`);
  return found;
}

async function failure(work: Promise<unknown>): Promise<BrowserServiceError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BrowserServiceError);
  return error as BrowserServiceError;
}

/** Signs `user` in: user name, password (a secret for the site), the current code. */
async function signIn(session: BrowserClient['session'], user: string): Promise<SessionPage> {
  let page = keep(await session.open({ user, url: `${site.url}/login` }));
  page = keep(await session.fill({ user, ref: element(page, 'textbox', 'User name').ref, value: site.username }));
  page = keep(
    await session.fill({
      user,
      ref: element(page, 'password', 'Password').ref,
      value: site.password,
      secret: true,
      sites: [site.url],
    }),
  );
  page = keep(await session.click({ user, ref: element(page, 'button', 'Sign in').ref }));
  page = keep(await session.fill({ user, ref: page.codeField!.ref, value: site.currentCode(), secret: true }));
  return keep(await session.click({ user, ref: element(page, 'button', 'Verify').ref }));
}

beforeAll(async () => {
  site = await startLoginSite();
  profilesDir = await mkdtemp(path.join(os.tmpdir(), 'assistant-profiles-'));
  ({ server: service, client } = await start(profilesDir));
});
afterAll(async () => {
  await service?.close();
  await site?.close();
  if (profilesDir) await rm(profilesDir, { recursive: true, force: true });
});

describe('totp', () => {
  it("matches RFC 6238's SHA-1 test vectors (6 digits)", () => {
    const secret = Buffer.from('12345678901234567890');
    expect(totp(secret, 59_000)).toBe('287082');
    expect(totp(secret, 1_111_111_109_000)).toBe('081804');
    expect(totp(secret, 2_000_000_000_000)).toBe('279037');
  });
});

describe('sessions: signing in with a one-time code', () => {
  const user = randomUUID();

  it('signs in through the form and the code to the account page; a wrong code is refused', async () => {
    const { session } = client;
    let page = keep(await session.open({ user, url: `${site.url}/login` }));
    expect(page).toMatchObject({ url: `${site.url}/login`, title: 'Sign in · Example Bank', codeField: null });
    expect(page.text).toContain('Sign in to Example Bank');
    expect(page.task).toMatchObject({ pages: 1, maxPages: 30, codesTyped: 0, maxActiveMs: 300_000 });
    expect(page.elements.map(({ role, name }) => `${role} ${name}`)).toEqual([
      'textbox User name',
      'password Password',
      'button Sign in',
      'link Update your address',
    ]);

    page = keep(await session.fill({ user, ref: element(page, 'textbox', 'User name').ref, value: site.username }));
    expect(element(page, 'textbox', 'User name').value).toBe(site.username);
    const password = element(page, 'password', 'Password').ref;
    page = keep(await session.fill({ user, ref: password, value: site.password, secret: true, sites: [site.url] }));
    expect(element(page, 'password', 'Password').value).toBe('[hidden]');

    page = keep(await session.click({ user, ref: element(page, 'button', 'Sign in').ref }));
    expect(page.url).toBe(`${site.url}/2fa`); // the POST's 303 followed, its session cookie kept
    expect(page.codeField).toEqual({
      ref: element(page, 'textbox', 'Authentication code').ref,
      name: 'Authentication code',
    });
    expect(page.task.pages).toBe(2);

    page = keep(await session.fill({ user, ref: page.codeField!.ref, value: site.wrongCode() }));
    expect(page.task.codesTyped).toBe(1);
    page = keep(await session.click({ user, ref: element(page, 'button', 'Verify').ref }));
    expect(page.text).toContain('That code is not valid');
    expect(page.codeField).not.toBeNull();
    expect(element(page, 'textbox', 'Authentication code').value).toBe('');

    page = keep(await session.fill({ user, ref: page.codeField!.ref, value: site.currentCode(), secret: true }));
    expect(page.task.codesTyped).toBe(2);
    expect(element(page, 'textbox', 'Authentication code').value).toBe('[hidden]');
    page = keep(await session.click({ user, ref: element(page, 'button', 'Verify').ref }));
    expect(page.url).toBe(`${site.url}/account`);
    expect(page.text).toContain(`Signed in as ${site.username}`);
    expect(page.text).toContain('First visit on this device');
    expect(page.codeField).toBeNull();
    expect(page.task).toMatchObject({ pages: 4, codesTyped: 2 });
    expect(site.sessionsIssued).toBe(1);
  });

  it('keeps each user to their own cookies', async () => {
    const other = randomUUID();
    const page = await client.session.open({ user: other, url: `${site.url}/account` });
    expect(page.url).toBe(`${site.url}/login`);
    expect((await client.session.close({ user: other })).closed).toBe(true);
  });

  it('spots no code field where a postal and a promo code are asked', async () => {
    const page = keep(await client.session.open({ user, url: `${site.url}/address` }));
    expect(element(page, 'textbox', 'Postal code').value).toBe('');
    expect(element(page, 'textbox', 'Promo code').value).toBe('');
    expect(page.codeField).toBeNull();
  });

  it('refuses to type a secret into a page of another site, and types nothing', async () => {
    let page = keep(await client.session.open({ user, url: `${site.url}/login` }));
    const ref = element(page, 'password', 'Password').ref;
    const error = await failure(
      client.session.fill({ user, ref, value: 'hunter2-elsewhere', secret: true, sites: ['https://bank.example'] }),
    );
    expect(error).toMatchObject({ code: 'refused', field: 'sites' });
    expect(error.message).toBe(
      `this page (${site.url}) is not one of the sites this secret is for (https://bank.example); it was not typed`,
    );
    page = keep(await client.session.snapshot({ user }));
    expect(element(page, 'password', 'Password').value).toBe('');
  });

  it('answers unknown_ref for a ref not on the page, and no_session without a task', async () => {
    const unknown = await failure(client.session.click({ user, ref: 999 }));
    expect(unknown).toMatchObject({ code: 'unknown_ref', field: 'ref' });
    expect(unknown.message).toMatch(/take a new snapshot/);
    const none = await failure(client.session.snapshot({ user: randomUUID() }));
    expect(none.code).toBe('no_session');
    expect(none.message).toBe('there is no open task for this user: open a page first');
  });

  it('never shows nor logs the password or a code, nor logs a URL or the user', () => {
    const all = JSON.stringify(answers);
    expect(all).not.toContain(site.password);
    expect(all).not.toContain('hunter2-elsewhere');
    const log = logLines.join('\n');
    expect(log).not.toContain(site.password);
    expect(log).not.toContain(site.username);
    expect(log).not.toContain(`127.0.0.1:${site.port}`);
    expect(log).not.toContain(user);
    expect(log).toMatch(/session click ok in \d+ ms/);
  });

  it('reports the open tasks in /health, and closes', async () => {
    expect((await client.health()).tasks).toBe(1);
    expect(await client.session.close({ user })).toEqual({ closed: true });
    expect(await client.session.close({ user })).toEqual({ closed: false });
    expect((await client.health()).tasks).toBe(0);
  });
});

describe('sessions: other pages and requests', () => {
  const user = randomUUID();
  afterAll(async () => void (await client.session.close({ user })));

  it('fills a form drawn by script, selects by label and by value, and sends it', async () => {
    let page = keep(await client.session.open({ user, url: `${site.url}/two-step` }));
    const plan = element(page, 'combobox', 'Plan');
    expect(plan).toMatchObject({ value: 'Choose a plan', options: ['Choose a plan', 'Basic', 'Pro', 'Team'] });
    page = await client.session.select({ user, ref: plan.ref, option: 'team' }); // by value
    expect(element(page, 'combobox', 'Plan').value).toBe('Team');
    page = await client.session.select({ user, ref: plan.ref, option: 'Pro' }); // by label
    expect(element(page, 'combobox', 'Plan').value).toBe('Pro');
    const unknown = await failure(client.session.select({ user, ref: plan.ref, option: 'Gold' }));
    expect(unknown).toMatchObject({ code: 'invalid_request', field: 'option' });
    expect(unknown.message).toBe(
      `element ${plan.ref} has no option "Gold"; its options: "Choose a plan", "Basic", "Pro", "Team"`,
    );
    page = await client.session.fill({ user, ref: element(page, 'textbox', 'Name on the order').ref, value: 'Ada L.' });
    page = await client.session.click({ user, ref: element(page, 'button', 'Next').ref });
    expect(page.text).toContain('You chose pro for Ada L.');
    page = await client.session.click({ user, ref: element(page, 'button', 'Confirm order').ref });
    expect(page.text).toContain('Thank you, your order was sent.');
    expect(site.submissions).toEqual([{ plan: 'pro', name: 'Ada L.' }]);
    expect(page.task.pages).toBe(1);
  });

  it('refuses to select in a field that is not a select, or to type into a button', async () => {
    const page = await client.session.open({ user, url: `${site.url}/login` });
    const select = await failure(
      client.session.select({ user, ref: element(page, 'textbox', 'User name').ref, option: 'x' }),
    );
    expect(select).toMatchObject({ code: 'invalid_request', field: 'ref' });
    const fill = await failure(client.session.fill({ user, ref: element(page, 'button', 'Sign in').ref, value: 'x' }));
    expect(fill).toMatchObject({ code: 'invalid_request', field: 'ref' });
    expect(fill.message).toBe(
      `element ${element(page, 'button', 'Sign in').ref} is a button, not a text field: click it`,
    );
  });

  it('follows a link that opens a new window: its page becomes the current one', async () => {
    let page = await client.session.open({ user, url: `${site.url}/address` });
    const pages = page.task.pages;
    page = await client.session.click({ user, ref: element(page, 'link', 'Help with addresses').ref });
    expect(page.url).toBe(`${site.url}/help`);
    expect(page.text).toContain('Write your address as it appears on your letters.');
    expect(page.task.pages).toBe(pages + 1);
  });

  it('takes a PNG of the viewport', async () => {
    await client.session.open({ user, url: `${site.url}/login` });
    const shot = await client.session.screenshot({ user });
    expect(Buffer.from(shot.png, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(shot.page.url).toBe(`${site.url}/login`);
  });

  it('answers refused for a page the guard refuses, and keeps no task for it', async () => {
    const other = randomUUID();
    const error = await failure(client.session.open({ user: other, url: `http://127.0.0.1:${service.port + 1}/` }));
    expect(error).toMatchObject({ code: 'refused', field: 'url' });
    expect(error.message).toMatch(/loopback address/);
    expect((await failure(client.session.snapshot({ user: other }))).code).toBe('no_session');
  });

  it('refuses bad requests naming the field', async () => {
    const post = (endpoint: string, body: unknown) =>
      fetch(`${service.url}/session/${endpoint}`, {
        method: 'POST',
        headers: { [BROWSER_KEY_HEADER]: KEY },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const cases: Array<[string, unknown, string]> = [
      ['open', { url: `${site.url}/login` }, 'user'],
      ['open', { user: 'ada', url: `${site.url}/login` }, 'user'],
      ['open', { user }, 'url'],
      ['open', { user, url: `${site.url}/login`, wait: true }, 'wait'],
      ['snapshot', 'not json', 'body'],
      ['click', { user, ref: 0 }, 'ref'],
      ['click', { user, ref: '3' }, 'ref'],
      ['click', { user, ref: 1, expectForm: true }, 'expectForm'],
      ['click-target', { user, ref: 1, expectForm: '' }, 'expectForm'],
      ['fill', { user, ref: 1 }, 'value'],
      ['fill', { user, ref: 1, value: 'x', secret: 'yes' }, 'secret'],
      ['fill', { user, ref: 1, value: 'x', sites: [site.url] }, 'sites'],
      ['fill', { user, ref: 1, value: 'x', secret: true, sites: ['ftp://example.com'] }, 'sites'],
      ['select', { user, ref: 1 }, 'option'],
    ];
    for (const [endpoint, body, field] of cases) {
      const response = await post(endpoint, body);
      expect(response.status, `${endpoint} ${JSON.stringify(body)}`).toBe(400);
      expect(((await response.json()) as { error: { field: string } }).error.field).toBe(field);
    }
  });
});

describe('sessions: what a click would send', () => {
  const user = randomUUID();
  afterAll(async () => void (await client.session.close({ user })));

  it('names the form a submit button sends, with the fields that hold a value; a link sends none', async () => {
    let page = await client.session.open({ user, url: `${site.url}/address` });
    page = await client.session.fill({ user, ref: element(page, 'textbox', 'Street').ref, value: 'Main St 1' });
    page = await client.session.fill({ user, ref: element(page, 'textbox', 'Postal code').ref, value: '1010' });
    const save = element(page, 'button', 'Save').ref;
    expect(await client.session.clickTarget({ user, ref: save })).toEqual({
      ref: save,
      form: { method: 'POST', action: `${site.url}/address`, fields: ['Street', 'Postal code'], signIn: false },
    });
    const help = element(page, 'link', 'Help with addresses').ref;
    expect(await client.session.clickTarget({ user, ref: help })).toEqual({ ref: help, form: null });
    expect(page.url).toBe(`${site.url}/address`); // looking clicked nothing
  });

  it('calls a form a sign-in only when a secret the assistant typed is in it', async () => {
    let page = await client.session.open({ user, url: `${site.url}/login` });
    const signIn = element(page, 'button', 'Sign in').ref;
    page = await client.session.fill({ user, ref: element(page, 'textbox', 'User name').ref, value: site.username });
    expect((await client.session.clickTarget({ user, ref: signIn })).form).toMatchObject({ signIn: false });
    const password = element(page, 'password', 'Password').ref;
    await client.session.fill({ user, ref: password, value: site.password, secret: true, sites: [site.url] });
    expect((await client.session.clickTarget({ user, ref: signIn })).form).toEqual({
      method: 'POST',
      action: `${site.url}/login`,
      fields: ['User name', 'Password'],
      signIn: true,
    });
  });

  it('clicks only when the element still sends the approved form', async () => {
    let page = await client.session.open({ user, url: `${site.url}/address` });
    const save = element(page, 'button', 'Save').ref;
    const refused = await failure(client.session.click({ user, ref: save, expectForm: '' }));
    expect(refused).toMatchObject({ code: 'refused', field: 'expectForm' });
    expect(refused.message).toBe(
      `element ${save} now sends a form (POST ${site.url}/address), not none as looked at; nothing was clicked: take a new snapshot`,
    );
    const other = await failure(
      client.session.click({ user, ref: save, expectForm: 'POST https://elsewhere.example/' }),
    );
    expect(other.message).toContain('not the approved one (POST https://elsewhere.example/)');
    expect((await client.session.snapshot({ user })).url).toBe(`${site.url}/address`);
    const before = site.addresses.length;
    page = await client.session.click({ user, ref: save, expectForm: `POST ${site.url}/address` });
    expect(site.addresses.length).toBe(before + 1);
    const help = element(
      await client.session.open({ user, url: `${site.url}/address` }),
      'link',
      'Help with addresses',
    );
    page = await client.session.click({ user, ref: help.ref, expectForm: '' });
    expect(page.url).toBe(`${site.url}/help`);
  });
});

describe('sessions: limits', () => {
  let small: Awaited<ReturnType<typeof start>>;
  const user = randomUUID();
  beforeAll(async () => {
    small = await start(profilesDir, { maxPages: 2, maxActiveMs: 6_000, maxTasks: 1, idleMs: 9_000 });
  });
  afterAll(async () => await small?.server.close());

  it('closes a task that loads more pages than its limit, keeping its cookies', async () => {
    const { session } = small.client;
    await session.open({ user, url: `${site.url}/login` });
    expect((await session.open({ user, url: `${site.url}/address` })).task.pages).toBe(2);
    const error = await failure(session.open({ user, url: `${site.url}/login` }));
    expect(error.code).toBe('task_limit');
    expect(error.message).toBe(
      'the task used up its 2 pages; it was closed (its cookies are kept) and a new task starts with the next open',
    );
    const after = await failure(session.snapshot({ user }));
    expect(after.code).toBe('no_session');
    expect(after.message).toBe('the task was closed (it used up its 2 pages); open a page to start a new one');
    expect((await stat(path.join(profilesDir, `${user}.json`))).isFile()).toBe(true);
  });

  it('counts active time only: time waiting for the user is left out', async () => {
    const { session } = small.client;
    const opened = await session.open({ user, url: `${site.url}/login` });
    const waiting = await session.wait({ user });
    expect(waiting.activeMs).toBeGreaterThanOrEqual(opened.task.activeMs);
    await sleep(6_500); // longer than the task's active time, waiting
    const back = await session.snapshot({ user });
    expect(back.task.activeMs).toBeLessThan(waiting.activeMs + 1_000);
    await sleep(6_000 - back.task.activeMs + 200); // working (not waiting) past the limit
    const error = await failure(session.snapshot({ user }));
    expect(error.code).toBe('task_limit');
    expect(error.message).toMatch(/^the task used up its 6 s of active time; it was closed/);
  });

  it('answers busy when as many users as allowed have a task open', async () => {
    const { session } = small.client;
    const other = randomUUID();
    await session.open({ user, url: `${site.url}/login` });
    const busy = await failure(session.open({ user: other, url: `${site.url}/login` }));
    expect(busy.code).toBe('busy');
    expect(busy.message).toBe(
      "the browser service has 1 users' tasks open, the most it takes at once; try again later",
    );
    await session.close({ user });
    expect((await session.open({ user: other, url: `${site.url}/login` })).url).toBe(`${site.url}/login`);
    await session.close({ user: other });
  });

  it('closes a task with no step for its idle time', async () => {
    const idle = await start(profilesDir, { idleMs: 1_000 });
    try {
      await idle.client.session.open({ user, url: `${site.url}/login` });
      await sleep(1_600);
      const error = await failure(idle.client.session.snapshot({ user }));
      expect(error.message).toBe('the task was closed (no step for 1 s); open a page to start a new one');
      expect((await idle.client.health()).tasks).toBe(0);
    } finally {
      await idle.server.close();
    }
  });
});

describe('sessions: failures', () => {
  let hangs: FakeSite;
  let quick: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    hangs = await startSite({
      '/hangs': html(`<html><body><p>This page hangs its renderer once it has loaded.</p>
        <script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));</script></body></html>`),
    });
    const server = await startBrowserServer({
      config: { ...config(profilesDir), allow: [site.hostPort, hangs.hostPort], renderTimeoutMs: 3_000 },
    });
    quick = { server, client: createBrowserClient({ url: server.url, key: KEY }) };
  });
  afterAll(async () => {
    await quick?.server.close();
    await hangs?.close();
  });

  it('closes a task whose page stops responding, and goes on serving', async () => {
    const user = randomUUID();
    const error = await failure(quick.client.session.open({ user, url: `${hangs.url}/hangs` }));
    expect(error.code).toBe('timeout');
    expect(error.message).toBe(
      'the page stopped responding (a script that does not end?); the task was closed (its cookies are kept)',
    );
    expect((await quick.client.health()).tasks).toBe(0);
    expect((await quick.client.session.open({ user, url: `${site.url}/login` })).codeField).toBeNull();
    await quick.client.session.close({ user });
  });

  it('answers no_session once the browser went away, and starts a new task on the next open', async () => {
    const user = randomUUID();
    await quick.client.session.open({ user, url: `${site.url}/login` });
    await (await quick.server.chromium.browser()).close(); // as if Chromium crashed
    const error = await failure(quick.client.session.snapshot({ user }));
    expect(error.code).toBe('no_session');
    expect(error.message).toBe('the task was closed (the browser stopped); open a page to start a new one');
    expect((await quick.client.session.open({ user, url: `${site.url}/login` })).url).toBe(`${site.url}/login`);
    expect((await quick.client.health()).launches).toBe(2);
  });
});

describe('sessions: the profile on disk', () => {
  it('keeps a sign-in across a restart of the service, in a file only the service can read', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'assistant-profiles-'));
    const user = randomUUID();
    try {
      const first = await start(dir);
      const issued = site.sessionsIssued;
      try {
        expect((await signIn(first.client.session, user)).text).toContain(`Signed in as ${site.username}`);
      } finally {
        await first.server.close(); // saves the open task
      }
      const file = path.join(dir, `${user}.json`);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
      const saved = JSON.parse(await readFile(file, 'utf8')) as { cookies: Array<{ name: string; expires: number }> };
      expect(saved.cookies.find((cookie) => cookie.name === 'sid')?.expires).toBe(-1); // a session cookie
      expect(JSON.stringify(saved)).not.toContain(site.password);

      const second = await start(dir);
      try {
        const page = await second.client.session.open({ user, url: `${site.url}/account` });
        expect(page.url).toBe(`${site.url}/account`);
        expect(page.text).toContain(`Signed in as ${site.username}`);
        expect(page.text).toContain('Welcome back'); // local storage came back too
        expect(site.sessionsIssued).toBe(issued + 1);
      } finally {
        await second.server.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
