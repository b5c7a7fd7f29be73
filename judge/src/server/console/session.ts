// The console's sign-in: a signed session cookie (no server-side state, so every replica with the same password
// accepts it; a new password signs everyone out) and a CSRF token derived from the session, which every request
// that changes something must carry in the X-CSRF-Token header.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SESSION_COOKIE = 'judge_console';
const VERSION = 'v1';

export interface Session {
  /** Epoch ms the session ends. */
  expiresAt: number;
  csrfToken: string;
}

const mac = (secret: Buffer, text: string) => createHmac('sha256', secret).update(text).digest('base64url');

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Signs sessions with a secret derived from the password. */
export class SessionSigner {
  private readonly secret: Buffer;

  constructor(
    password: string,
    private readonly lifetimeMs: number,
  ) {
    this.secret = createHmac('sha256', password).update('systemone-judge console session').digest();
  }

  /** A new session: its cookie value and what the page learns. */
  issue(now: number): { cookie: string; session: Session } {
    const expiresAt = now + this.lifetimeMs;
    const nonce = randomBytes(18).toString('base64url');
    const body = `${VERSION}.${expiresAt}.${nonce}`;
    return { cookie: `${body}.${mac(this.secret, body)}`, session: { expiresAt, csrfToken: this.csrf(nonce) } };
  }

  /** The session a cookie value carries, or why it is refused. */
  read(cookie: string | undefined, now: number): Session | { refused: string } {
    if (!cookie) return { refused: 'not signed in' };
    const parts = cookie.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) return { refused: 'the session cookie is not valid' };
    const [version, expires, nonce, signature] = parts;
    if (!sameText(signature, mac(this.secret, `${version}.${expires}.${nonce}`))) {
      return { refused: 'the session cookie is not valid' };
    }
    const expiresAt = Number(expires);
    if (!Number.isSafeInteger(expiresAt) || expiresAt <= now) return { refused: 'the session has expired' };
    return { expiresAt, csrfToken: this.csrf(nonce) };
  }

  /** Whether a presented CSRF token is the session's. */
  static csrfMatches(session: Session, presented: unknown): boolean {
    return typeof presented === 'string' && sameText(presented, session.csrfToken);
  }

  private csrf(nonce: string): string {
    return mac(this.secret, `csrf.${nonce}`);
  }
}

/** The value of one cookie in a Cookie header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether a password is the console's, in constant time whatever its length. */
export function passwordMatches(expected: string, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const digest = (text: string) => createHmac('sha256', 'systemone-judge console password').update(text).digest();
  return timingSafeEqual(digest(expected), digest(presented));
}
