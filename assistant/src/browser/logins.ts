// Site logins the operator keeps in one n8n credential (Assistant Site Logins): a JSON list of
// {name, site, username, password, users?}. The model names a login and a part (username or password); the value goes
// from the credential to the browser service, which types it only on a page of the login's own site. The model never
// sees the value, and it appears in no turn, log or tool result. A login belongs to the users it lists (`users`:
// "owner" for the operator, or an identity such as "telegram:12345" or "api:alice"); the operator alone by default.
import { AssistantInputError } from '../errors';

export interface SiteLogin {
  name: string;
  /** The origins (scheme://host[:port]) the login may be typed into. */
  sites: string[];
  username: string;
  password: string;
  /** Who may have it typed: "owner" (the operator) or identities ("<channel>:<id>"). */
  users: string[];
}

/** A login's users when it lists none: the operator alone. */
export const LOGIN_OWNER = 'owner';
const LOGIN_USER = /^(owner|[a-z][a-z0-9_-]{0,39}:\S{1,200})$/;

export const LOGIN_PARTS = ['username', 'password'] as const;
export type LoginPart = (typeof LOGIN_PARTS)[number];

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

function origin(value: unknown, where: string): string {
  if (typeof value !== 'string' || !value.trim()) {
    throw new AssistantInputError('logins', `${where}: "site" must be the site's address, e.g. https://example.com`);
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new AssistantInputError('logins', `${where}: "site" is not a URL (e.g. https://example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new AssistantInputError('logins', `${where}: "site" must be an http or https address`);
  }
  return url.origin;
}

function loginUsers(value: unknown, where: string): string[] {
  if (value === undefined || value === null) return [LOGIN_OWNER];
  const listed = Array.isArray(value) ? value : [value];
  const users = listed.map((user) => (typeof user === 'string' ? user.trim() : user));
  if (users.length === 0 || users.some((user) => typeof user !== 'string' || !LOGIN_USER.test(user))) {
    throw new AssistantInputError(
      'logins',
      `${where}: "users" must list "owner" or identities like "telegram:12345" or "api:alice"`,
    );
  }
  return users as string[];
}

/** Reads the credential's list; a mistake names the entry (never a value). */
export function parseSiteLogins(text: unknown): Map<string, SiteLogin> {
  const logins = new Map<string, SiteLogin>();
  if (text === undefined || text === null || (typeof text === 'string' && !text.trim())) return logins;
  let list: unknown;
  try {
    list = typeof text === 'string' ? JSON.parse(text) : text;
  } catch {
    throw new AssistantInputError('logins', 'is not JSON: a list like [{"name", "site", "username", "password"}]');
  }
  if (!Array.isArray(list)) {
    throw new AssistantInputError('logins', 'must be a JSON list like [{"name", "site", "username", "password"}]');
  }
  list.forEach((entry, index) => {
    const where = `entry ${index + 1}`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) {
      throw new AssistantInputError('logins', `${where} must be an object {name, site, username, password}`);
    }
    const { name, site, sites, username, password, users } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || !NAME.test(name.trim())) {
      throw new AssistantInputError('logins', `${where}: "name" must be 1-64 letters, digits, spaces, ".", "_", "-"`);
    }
    const key = name.trim().toLowerCase();
    if (logins.has(key)) throw new AssistantInputError('logins', `${where}: the name "${name.trim()}" is used twice`);
    const listed = sites === undefined ? [site] : Array.isArray(sites) ? sites : [sites];
    if (listed.length === 0) throw new AssistantInputError('logins', `${where}: "site" is required`);
    for (const [field, value] of [
      ['username', username],
      ['password', password],
    ] as const) {
      if (typeof value !== 'string' || value === '') {
        throw new AssistantInputError('logins', `${where} ("${name.trim()}"): "${field}" is required`);
      }
    }
    logins.set(key, {
      name: name.trim(),
      sites: listed.map((value) => origin(value, `${where} ("${name.trim()}")`)),
      username: username as string,
      password: password as string,
      users: loginUsers(users, `${where} ("${name.trim()}")`),
    });
  });
  return logins;
}

/** The value of one part of a named login, and where it may be typed; an unknown name lists the known ones. */
export function loginValue(
  logins: Map<string, SiteLogin>,
  nameInput: unknown,
  partInput: unknown,
  /** Who asks: their identities, and "owner" when they are the operator. */
  holder: ReadonlySet<string>,
): { value: string; sites: string[]; description: string } {
  const mayUse = (login: SiteLogin) => login.users.some((user) => holder.has(user));
  const names = [...logins.values()].filter(mayUse).map((login) => login.name);
  if (typeof nameInput !== 'string' || !nameInput.trim()) {
    throw new AssistantInputError('login', 'name the site login to type (the operator sets them up)');
  }
  const login = logins.get(nameInput.trim().toLowerCase());
  if (!login) {
    const known = names.length
      ? `the known ones: ${names.join(', ')}`
      : logins.size
        ? 'none is shared with you (the "users" of Assistant Site Logins)'
        : 'none is set up (Assistant Site Logins)';
    throw new AssistantInputError('login', `no site login named "${nameInput.trim()}"; ${known}`);
  }
  if (!mayUse(login)) {
    throw new AssistantInputError(
      'login',
      `the site login "${login.name}" belongs to another user; the operator can share it (its "users" in Assistant Site Logins)`,
    );
  }
  const part = typeof partInput === 'string' && partInput.trim() ? partInput.trim().toLowerCase() : 'password';
  if (!(LOGIN_PARTS as readonly string[]).includes(part)) {
    throw new AssistantInputError('part', 'must be username or password');
  }
  return {
    value: part === 'username' ? login.username : login.password,
    sites: login.sites,
    description: `the ${part} of the site login "${login.name}"`,
  };
}
