// The operator's console: GET /console (a static page) and its JSON routes under /console/api, behind one sign-in
// (the operator's password, a signed session cookie, a CSRF token on every change, same-origin only, wrong
// passwords rate-limited):
//   GET|POST|DELETE /console/api/session   who is signed in | sign in {password} | sign out
//   GET|POST        /console/api/keys      the store's keys | create one {name, limits} (the key is shown once)
//   DELETE          /console/api/keys/<id> revoke a key
//   GET             /console/api/usage     usage per key and UTC day (?from=&to=, YYYY-MM-DD), with costs
//   GET             /console/api/chat      whether the web chat is on (GET /console/chat is its page)
//   POST            /console/api/chat/messages  {message, reply_to?} to the assistant: its reply or question
//   POST            /console/api/chat/voice     ?reply_to=: a recorded voice note (audio/webm, audio/ogg, …, 3 MB)
//   GET             /console/api/chat/events    ?after=<cursor>: what the assistant said on its own (long poll)
//   POST            /console/api/chat/receipts  {shown: [ids]}: the page showed them (the outbox's receipt, web)
// Off until a password is set; without a key store it says so. Built to host more pages behind the same sign-in.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyAccess } from '../../keys/access';
import { ApiError } from '../../protocol/errors';
import { parseJsonBody, readBody } from '../http';
import { checkSameOrigin, isLoopbackAddress } from '../playground/access';
import { CONSOLE_PATH, consoleAssets } from './assets';
import { createKey, publicKey, revokeKey, usageOfAllKeys } from './keys';
import { cookieValue, passwordMatches, SESSION_COOKIE, SessionSigner, type Session } from './session';
import { DEFAULT_CONSOLE, type ConsoleSettings } from './settings';
import { SignInLimit, type SignInLimits } from './sign-in-limit';
import { WEB_CHAT_MAX_VOICE_BYTES, WebChat, type WebChatOptions } from './web-chat';

export { CONSOLE_PATH } from './assets';
export { readConsoleSettings, type ConsoleSettings } from './settings';

export interface ConsoleContext {
  settings?: Partial<ConsoleSettings>;
  access: KeyAccess;
  signInLimits?: SignInLimits;
  /** The clock (epoch ms); tests move it. */
  now?: () => number;
  /** The web chat's polling, for tests. */
  webChat?: Omit<WebChatOptions, 'entry'>;
}

export interface OperatorConsole {
  handles(path: string): boolean;
  route(
    req: IncomingMessage,
    res: ServerResponse,
    line: { request_id: string; path: string },
  ): Promise<[number, unknown]>;
  /** Whether it can be signed in to, and if not why (for the startup notes). */
  status(): { on: boolean; reason: string };
}

const API = `${CONSOLE_PATH}/api`;
const MAX_BODY_BYTES = 16 * 1024;

export function createConsole(context: ConsoleContext): OperatorConsole {
  const settings: ConsoleSettings = { ...DEFAULT_CONSOLE, ...(context.settings ?? {}) };
  const now = context.now ?? Date.now;
  const assets = consoleAssets();
  const signer = settings.password
    ? new SessionSigner(settings.password, settings.sessionHours * 3_600_000)
    : undefined;
  const limit = new SignInLimit(context.signInLimits);
  const webChat = new WebChat({ ...context.webChat, entry: settings.assistant });
  const status = () =>
    !signer
      ? { on: false, reason: 'no password: set JUDGE_CONSOLE_PASSWORD (12 characters or more) to switch it on' }
      : !context.access.holdsKeys
        ? { on: false, reason: 'no key store: set JUDGE_KEYS_DATABASE_URL or JUDGE_KEYS_FILE' }
        : { on: true, reason: 'signed in with JUDGE_CONSOLE_PASSWORD' };

  /** The signed-in session of a request, or the 401 that says why not. */
  function sessionOf(req: IncomingMessage): Session {
    const session = requireOn().read(cookieValue(req.headers.cookie, SESSION_COOKIE), now());
    if ('refused' in session) throw new ApiError(401, `Sign in to the console: ${session.refused}.`);
    return session;
  }

  /** A change: same origin, signed in, with the session's CSRF token. */
  function changeAllowed(req: IncomingMessage): Session {
    checkSameOrigin(req, 'The console only takes changes from its own page');
    const session = sessionOf(req);
    if (!SessionSigner.csrfMatches(session, req.headers['x-csrf-token'])) {
      throw new ApiError(403, 'The X-CSRF-Token header is missing or not this session’s; reload the console.', 'csrf');
    }
    return session;
  }

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<[number, unknown]> {
    checkSameOrigin(req, 'The console only takes sign-ins from its own page');
    const sessions = requireOn();
    const address = clientAddress(req);
    const wait = limit.waitFor(address, now());
    if (wait > 0) {
      const seconds = Math.ceil(wait / 1000);
      throw new ApiError(429, `Too many wrong passwords; try again in ${seconds} s.`, 'rate_limit_exceeded', {
        headers: { 'retry-after': String(seconds) },
      });
    }
    const body = await jsonBody(req);
    const password = (body as { password?: unknown } | null)?.password;
    if (!passwordMatches(settings.password!, password)) {
      limit.failed(address, now());
      throw new ApiError(401, 'That is not the console password.');
    }
    const issued = sessions.issue(now());
    res.setHeader('set-cookie', sessionCookie(req, issued.cookie, settings.sessionHours * 3600));
    return [200, sessionBody(issued.session)];
  }

  /** The session signer, when the console is on; else the 503 that says how to switch it on. */
  function requireOn(): SessionSigner {
    const state = status();
    if (!state.on || !signer) throw new ApiError(503, `The console is off: ${state.reason}.`, 'console_off');
    return signer;
  }

  async function api(req: IncomingMessage, res: ServerResponse, path: string): Promise<[number, unknown]> {
    const method = req.method ?? 'GET';
    if (path === `${API}/session`) {
      if (method === 'GET') return [200, sessionBody(sessionOf(req))];
      if (method === 'POST') return signIn(req, res);
      if (method === 'DELETE') {
        changeAllowed(req);
        res.setHeader('set-cookie', sessionCookie(req, '', 0));
        return [200, { signed_in: false }];
      }
      throw new ApiError(405, 'Use GET, POST or DELETE /console/api/session.', 'method_not_allowed');
    }
    if (path === `${API}/keys`) {
      if (method === 'GET') {
        sessionOf(req);
        return [200, { keys: (await context.access.store.listKeys()).map(publicKey) }];
      }
      if (method === 'POST') {
        changeAllowed(req);
        return [201, await createKey(context.access, await jsonBody(req))];
      }
      throw new ApiError(405, 'Use GET or POST /console/api/keys.', 'method_not_allowed');
    }
    if (path.startsWith(`${API}/keys/`)) {
      if (method !== 'DELETE')
        throw new ApiError(405, 'Use DELETE /console/api/keys/<id> to revoke.', 'method_not_allowed');
      changeAllowed(req);
      return [200, await revokeKey(context.access, path.slice(`${API}/keys/`.length), new Date(now()))];
    }
    if (path === `${API}/usage`) {
      if (method !== 'GET') throw new ApiError(405, 'Use GET /console/api/usage.', 'method_not_allowed');
      sessionOf(req);
      return [
        200,
        await usageOfAllKeys(context.access, new URL(req.url ?? '/', 'http://localhost').searchParams, now()),
      ];
    }
    if (path === `${API}/chat` || path.startsWith(`${API}/chat/`)) return chat(req, path);
    throw new ApiError(404, `No route ${path}.`, 'not_found');
  }

  /** The web chat's routes: every one signed in (401 otherwise), a message also same-origin with the CSRF token. */
  async function chat(req: IncomingMessage, path: string): Promise<[number, unknown]> {
    const method = req.method ?? 'GET';
    if (path === `${API}/chat`) {
      if (method !== 'GET') throw new ApiError(405, 'Use GET /console/api/chat.', 'method_not_allowed');
      sessionOf(req);
      return [200, { on: webChat.on, voice: webChat.voice, user_id: 'owner' }];
    }
    if (path === `${API}/chat/messages`) {
      if (method !== 'POST') throw new ApiError(405, 'Use POST /console/api/chat/messages.', 'method_not_allowed');
      changeAllowed(req);
      return [200, await webChat.send(await jsonBody(req))];
    }
    if (path === `${API}/chat/voice`) {
      if (method !== 'POST') throw new ApiError(405, 'Use POST /console/api/chat/voice.', 'method_not_allowed');
      changeAllowed(req);
      const replyTo = new URL(req.url ?? '/', 'http://localhost').searchParams.get('reply_to');
      const audio = await readBody(req, WEB_CHAT_MAX_VOICE_BYTES);
      return [200, await webChat.sendVoice(audio, req.headers['content-type'], replyTo)];
    }
    if (path === `${API}/chat/events`) {
      if (method !== 'GET') throw new ApiError(405, 'Use GET /console/api/chat/events.', 'method_not_allowed');
      sessionOf(req);
      const closed = new AbortController();
      req.once('close', () => closed.abort());
      const after = new URL(req.url ?? '/', 'http://localhost').searchParams.get('after');
      return [200, await webChat.events(after, closed.signal)];
    }
    if (path === `${API}/chat/receipts`) {
      if (method !== 'POST') throw new ApiError(405, 'Use POST /console/api/chat/receipts.', 'method_not_allowed');
      changeAllowed(req);
      return [200, await webChat.receipt(await jsonBody(req))];
    }
    throw new ApiError(404, `No route ${path}.`, 'not_found');
  }

  return {
    handles: (path) => path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`),
    status,
    async route(req, res, line) {
      const path = line.path;
      if (path.startsWith(`${API}/`) || path === API) return api(req, res, path);
      if (req.method !== 'GET') throw new ApiError(405, `Use GET ${path}.`, 'method_not_allowed');
      if (assets.has(path)) return assets.serve(res, line.request_id, path);
      throw new ApiError(404, `No route ${path}.`, 'not_found');
    },
  };
}

const sessionBody = (session: Session) => ({
  signed_in: true,
  csrf_token: session.csrfToken,
  expires_at: new Date(session.expiresAt).toISOString(),
});

async function jsonBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') throw new ApiError(415, 'Send the body as application/json.');
  return parseJsonBody((await readBody(req, MAX_BODY_BYTES)).toString('utf8'), 8);
}

/** Behind a proxy on loopback (Caddy), the client is the last X-Forwarded-For entry; otherwise the peer. */
function clientAddress(req: IncomingMessage): string {
  const peer = req.socket.remoteAddress ?? '';
  const forwarded = req.headers['x-forwarded-for'];
  if (typeof forwarded === 'string' && isLoopbackAddress(peer)) return forwarded.split(',').at(-1)!.trim() || peer;
  return peer;
}

/** HttpOnly, SameSite=Strict, for /console only; Secure when the page was reached over HTTPS (through the proxy). */
function sessionCookie(req: IncomingMessage, value: string, maxAgeSeconds: number): string {
  const secure = req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=${CONSOLE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure}`;
}
