// URL helpers for the web tools: absolute http(s) links, and the key two result URLs share when they are one page.

/** `href` resolved against `base`, when it is an http(s) URL (fragment removed); otherwise undefined. */
export function absoluteHttpUrl(href: string | null | undefined, base: string): string | undefined {
  if (!href) return undefined;
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  url.hash = '';
  return url.href;
}

/** Query parameters that only track the click, never change the page. */
const TRACKING = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|yclid|_hsenc|_hsmi|ref_src)$/i;

/**
 * The de-duplication key of a result URL: scheme-less (http and https are one page), lower-case host without `www.`,
 * no default port, no fragment, no tracking parameters, the rest of the query sorted, no trailing slash.
 */
export function urlKey(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return href.trim();
  }
  const params = [...url.searchParams.entries()].filter(([name]) => !TRACKING.test(name));
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = params.length > 0 ? `?${new URLSearchParams(params).toString()}` : '';
  const host = url.hostname.replace(/^www\./, '');
  const port = url.port ? `:${url.port}` : ''; // empty for the scheme's default port
  const path = url.pathname.replace(/\/+$/, '');
  return `${host}${port}${path}${query}`;
}
