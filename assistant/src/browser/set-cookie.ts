// The cookies of a document redirect. guarded-context.ts never hands a document's redirect to Chromium (it aborts it
// and the caller navigates to the target), so Chromium never sees that response's Set-Cookie lines; but a login
// typically answers with its session cookie and a redirect. Those lines are parsed here (RFC 6265, leniently) and put
// into the context's cookie jar before the target is loaded.
import type { BrowserContext } from 'playwright-core';

type Cookie = Parameters<BrowserContext['addCookies']>[0][number];

export interface RedirectCookies {
  set: Cookie[];
  /** Cookies the response expires (Max-Age=0, an Expires in the past). */
  clear: Array<{ name: string; domain: string; path: string }>;
}

const SAME_SITE: Record<string, Cookie['sameSite']> = { strict: 'Strict', lax: 'Lax', none: 'None' };

/** The cookies `lines` (a response's Set-Cookie headers) set for a response from `url`; bad lines are skipped. */
export function parseSetCookies(lines: string[], url: string, now = Date.now()): RedirectCookies {
  const from = new URL(url);
  const out: RedirectCookies = { set: [], clear: [] };
  for (const line of lines) {
    const [pair, ...attributes] = line.split(';');
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals).trim();
    const value = pair.slice(equals + 1).trim();
    let domain = from.hostname;
    let path = defaultPath(from.pathname);
    let expires = -1;
    let maxAge: number | undefined;
    let secure = false;
    let httpOnly = false;
    let sameSite: Cookie['sameSite'] = 'Lax';
    let rejected = false;
    for (const attribute of attributes) {
      const [key, ...rest] = attribute.split('=');
      const lower = key.trim().toLowerCase();
      const setting = rest.join('=').trim();
      if (lower === 'domain' && setting !== '') {
        const wanted = setting.replace(/^\./, '').toLowerCase();
        // A cookie for another site is ignored, as a browser does.
        if (from.hostname !== wanted && !from.hostname.endsWith(`.${wanted}`)) rejected = true;
        domain = `.${wanted}`;
      } else if (lower === 'path' && setting.startsWith('/')) path = setting;
      else if (lower === 'expires' && !Number.isNaN(Date.parse(setting))) expires = Date.parse(setting) / 1000;
      else if (lower === 'max-age' && /^-?\d+$/.test(setting)) maxAge = Number(setting);
      else if (lower === 'secure') secure = true;
      else if (lower === 'httponly') httpOnly = true;
      else if (lower === 'samesite') sameSite = SAME_SITE[setting.toLowerCase()] ?? 'Lax';
    }
    if (rejected) continue;
    if (maxAge !== undefined) expires = now / 1000 + maxAge;
    if (expires !== -1 && expires <= now / 1000) {
      out.clear.push({ name, domain, path });
      continue;
    }
    out.set.push({
      name,
      value,
      domain,
      path,
      expires: expires === -1 ? -1 : Math.floor(expires),
      secure,
      httpOnly,
      sameSite,
    });
  }
  return out;
}

/** Puts the redirect's cookies into the context's jar; a cookie Chromium will not take is skipped, never thrown. */
export async function keepRedirectCookies(context: BrowserContext, lines: string[], url: string): Promise<void> {
  if (lines.length === 0) return;
  const { set, clear } = parseSetCookies(lines, url);
  for (const filter of clear) await context.clearCookies(filter).catch(() => undefined);
  for (const cookie of set) await context.addCookies([cookie]).catch(() => undefined);
}

/** RFC 6265's default-path: the request path up to its last slash, or `/`. */
function defaultPath(pathname: string): string {
  const last = pathname.lastIndexOf('/');
  return last <= 0 ? '/' : pathname.slice(0, last);
}
