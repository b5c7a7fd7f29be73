// A fake web site with a sign-in behind a one-time code, for the browser sessions' tests (and an end-to-end test).
// Self-contained (node:http and node:crypto only), on 127.0.0.1 with a free port, loading nothing from anywhere else:
//
//   /login      a form (user name, password; POST) → a session cookie (no Expires) and a redirect to /2fa
//   /2fa        "Authentication code" (autocomplete="one-time-code") and Verify: a real TOTP (RFC 6238: SHA-1,
//               6 digits, 30 s; the current and the previous window); a wrong code shows "That code is not valid"
//   /account    "Signed in as <user>" with a verified session (and "Welcome back" from local storage on a later
//               visit), else a redirect to /login
//   /address    a form with a postal code and a promo code (not one-time codes; POST, kept in `addresses`), and a
//               link opening /help in a new window
//   /two-step   a form drawn by script after a delay: a plan (select) and a name, Next, then Confirm, which sends
//               {plan, name} by fetch to /submit (kept in `submissions`)
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoginSiteOptions {
  username?: string;
  password?: string;
  /** The TOTP secret (raw bytes); random by default. */
  totpSecret?: Buffer;
  /** How long /two-step takes to draw its form; 400 ms by default. */
  twoStepDelayMs?: number;
}

export interface LoginSite {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** `127.0.0.1:<port>`, for the browser service's allow list. */
  hostPort: string;
  username: string;
  password: string;
  totpSecret: Buffer;
  /** The code the authenticator shows now. */
  currentCode(now?: number): string;
  /** A code valid neither now nor in the previous window. */
  wrongCode(now?: number): string;
  /** What the /address form sent, in order. */
  addresses: Array<Record<string, string>>;
  /** What /two-step sent, in order. */
  submissions: Array<Record<string, unknown>>;
  /** Sign-ins with the right password (each issues a new session). */
  readonly sessionsIssued: number;
  /** Every request as `METHOD /path`, in order. */
  requests: string[];
  close(): Promise<void>;
}

const STEP_SECONDS = 30;

/** RFC 6238's TOTP with HMAC-SHA-1: the 6-digit code for `secret` at `now` (ms since the epoch). */
export function totp(secret: Buffer, now = Date.now(), digits = 6): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(now / 1000 / STEP_SECONDS)));
  const mac = createHmac('sha1', secret).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const loginPage = (error: boolean) =>
  page(
    'Sign in · Example Bank',
    `<h1>Sign in to Example Bank</h1>
    ${error ? '<p role="alert">Wrong user name or password</p>' : ''}
    <form method="post" action="/login">
      <p><label for="username">User name</label> <input id="username" name="username" autocomplete="username"></p>
      <p><label>Password <input type="password" name="password" autocomplete="current-password"></label></p>
      <p><button type="submit">Sign in</button></p>
    </form>
    <p><a href="/address">Update your address</a></p>`,
  );

const codePage = (error: boolean) =>
  page(
    'Two-step verification · Example Bank',
    `<h1>Two-step verification</h1>
    <p>Enter the 6-digit code from your authenticator app.</p>
    ${error ? '<p role="alert">That code is not valid</p>' : ''}
    <form method="post" action="/2fa">
      <p><label for="otp">Authentication code</label>
      <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code"></p>
      <p><button type="submit">Verify</button></p>
    </form>`,
  );

const accountPage = (user: string) =>
  page(
    'Your account · Example Bank',
    `<h1>Your account</h1>
    <p>Signed in as ${escapeHtml(user)}</p>
    <p id="greeting"></p>
    <p><a href="/logout">Sign out</a></p>
    <script>
      const seen = localStorage.getItem('visited');
      document.getElementById('greeting').textContent = seen ? 'Welcome back' : 'First visit on this device';
      localStorage.setItem('visited', 'yes');
    </script>`,
  );

const ADDRESS_PAGE = page(
  'Your address · Example Bank',
  `<h1>Your address</h1>
  <form method="post" action="/address">
    <p><label for="street">Street</label> <input id="street" name="street"></p>
    <p><label for="postal">Postal code</label> <input id="postal" name="postal_code"></p>
    <p><label for="promo">Promo code</label> <input id="promo" name="promoCode"></p>
    <p><button type="submit">Save</button></p>
  </form>
  <p><a href="/help" target="_blank">Help with addresses</a></p>`,
);

const HELP_PAGE = page('Help · Example Bank', '<h1>Help</h1><p>Write your address as it appears on your letters.</p>');

const twoStepPage = (delayMs: number) =>
  page(
    'Order a plan · Example Bank',
    `<h1>Order a plan</h1>
    <div id="app">Loading…</div>
    <script>
      const app = document.getElementById('app');
      const add = (parent, tag, props) => parent.appendChild(Object.assign(document.createElement(tag), props));
      setTimeout(() => {
        app.textContent = '';
        add(app, 'label', { htmlFor: 'plan', textContent: 'Plan' });
        const plan = add(app, 'select', { id: 'plan' });
        for (const [value, label] of [['', 'Choose a plan'], ['basic', 'Basic'], ['pro', 'Pro'], ['team', 'Team']]) {
          add(plan, 'option', { value, textContent: label });
        }
        add(app, 'label', { htmlFor: 'name', textContent: 'Name on the order' });
        const name = add(app, 'input', { id: 'name' });
        const problem = add(app, 'p', { role: 'alert' });
        add(app, 'button', { type: 'button', textContent: 'Next' }).addEventListener('click', () => {
          if (!plan.value || !name.value) return void (problem.textContent = 'Choose a plan and give a name');
          const chosen = { plan: plan.value, name: name.value };
          app.textContent = '';
          add(app, 'p', { textContent: 'You chose ' + chosen.plan + ' for ' + chosen.name + '.' });
          add(app, 'button', { type: 'button', textContent: 'Confirm order' }).addEventListener('click', async () => {
            const response = await fetch('/submit', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(chosen),
            });
            app.textContent = response.ok ? 'Thank you, your order was sent.' : 'The order failed.';
          });
        });
      }, ${delayMs});
    </script>`,
  );

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function cookie(request: http.IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

export async function startLoginSite(options: LoginSiteOptions = {}): Promise<LoginSite> {
  const username = options.username ?? 'ada';
  const password = options.password ?? 'correct horse battery staple';
  const totpSecret = options.totpSecret ?? randomBytes(20);
  const sessions = new Map<string, { user: string; verified: boolean }>();
  const submissions: Array<Record<string, unknown>> = [];
  const addresses: Array<Record<string, string>> = [];
  const requests: string[] = [];
  let sessionsIssued = 0;

  const send = (
    response: http.ServerResponse,
    status: number,
    body: string,
    headers: http.OutgoingHttpHeaders = {},
  ) => {
    response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', ...headers });
    response.end(body);
  };
  const redirect = (response: http.ServerResponse, location: string, headers: http.OutgoingHttpHeaders = {}) => {
    response.writeHead(303, { location, 'cache-control': 'no-store', ...headers });
    response.end();
  };
  const sessionOf = (request: http.IncomingMessage) => sessions.get(cookie(request, 'sid') ?? '');
  const validCode = (code: string) => {
    const now = Date.now();
    return code === totp(totpSecret, now) || code === totp(totpSecret, now - STEP_SECONDS * 1000);
  };

  async function handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://site').pathname;
    const route = `${request.method} ${path}`;
    requests.push(route);
    const form = () => readBody(request).then((text) => new URLSearchParams(text));
    switch (route) {
      case 'GET /':
        return redirect(response, '/login');
      case 'GET /login':
        return send(response, 200, loginPage(false));
      case 'POST /login': {
        const fields = await form();
        if (fields.get('username') !== username || fields.get('password') !== password) {
          return send(response, 200, loginPage(true));
        }
        const sid = randomBytes(16).toString('hex');
        sessions.set(sid, { user: username, verified: false });
        sessionsIssued += 1;
        return redirect(response, '/2fa', {
          'set-cookie': [`sid=${sid}; Path=/; HttpOnly; SameSite=Lax`, 'device=known; Path=/; Max-Age=2592000'],
        });
      }
      case 'GET /2fa':
        return sessionOf(request) ? send(response, 200, codePage(false)) : redirect(response, '/login');
      case 'POST /2fa': {
        const session = sessionOf(request);
        if (!session) return redirect(response, '/login');
        if (!validCode((await form()).get('otp')?.trim() ?? '')) return send(response, 200, codePage(true));
        session.verified = true;
        return redirect(response, '/account');
      }
      case 'GET /account': {
        const session = sessionOf(request);
        return session?.verified ? send(response, 200, accountPage(session.user)) : redirect(response, '/login');
      }
      case 'GET /logout':
        sessions.delete(cookie(request, 'sid') ?? '');
        return redirect(response, '/login', { 'set-cookie': 'sid=; Path=/; Max-Age=0' });
      case 'GET /address':
        return send(response, 200, ADDRESS_PAGE);
      case 'POST /address':
        addresses.push(Object.fromEntries(await form()));
        return send(response, 200, page('Address saved · Example Bank', '<h1>Your address was saved.</h1>'));
      case 'GET /help':
        return send(response, 200, HELP_PAGE);
      case 'GET /two-step':
        return send(response, 200, twoStepPage(options.twoStepDelayMs ?? 400));
      case 'POST /submit': {
        submissions.push(JSON.parse(await readBody(request)) as Record<string, unknown>);
        response.writeHead(200, { 'content-type': 'application/json' });
        return void response.end('{"ok":true}');
      }
      default:
        return send(response, 404, page('Not found', '<h1>Not found</h1>'));
    }
  }

  const server = http.createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain' });
      response.end('bad request');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hostPort: `127.0.0.1:${port}`,
    username,
    password,
    totpSecret,
    currentCode: (now = Date.now()) => totp(totpSecret, now),
    wrongCode: (now = Date.now()) => {
      const taken = new Set([totp(totpSecret, now), totp(totpSecret, now - STEP_SECONDS * 1000)]);
      let code = 0;
      while (taken.has(String(code).padStart(6, '0'))) code += 1;
      return String(code).padStart(6, '0');
    },
    submissions,
    addresses,
    get sessionsIssued() {
      return sessionsIssued;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
