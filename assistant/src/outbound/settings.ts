// The outbound guard's one setting: ASSISTANT_OUTBOUND_ALLOW, the `host:port` entries it lets through even though
// they are loopback, private or otherwise refused (a local service the operator wants the assistant to reach, or the
// tests' loopback servers).
import { AssistantInputError } from '../errors';
import { formatHostPort, parseHostPort } from './addresses';

export const OUTBOUND_ALLOW_SETTING = 'ASSISTANT_OUTBOUND_ALLOW';

/**
 * The allow list from `ASSISTANT_OUTBOUND_ALLOW`: `host:port` entries separated by commas and/or white space
 * (`localhost:8080, 127.0.0.1:3000 [::1]:9000`), normalised. Unset or blank → an empty list. A bad entry is an
 * `AssistantInputError` naming `ASSISTANT_OUTBOUND_ALLOW` and the entry.
 */
export function outboundAllowList(env: NodeJS.ProcessEnv = process.env): string[] {
  const raw = env[OUTBOUND_ALLOW_SETTING] ?? '';
  return raw
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry) => formatHostPort(parseHostPort(entry, OUTBOUND_ALLOW_SETTING)));
}

/** Where the judge server is, for the guard to keep it out of reach: `ASSISTANT_JUDGE_URL` (else SYSTEMONE_JUDGE_URL). */
export const JUDGE_URL_SETTING = 'ASSISTANT_JUDGE_URL';

/**
 * The endpoints no outbound fetch may reach, from the environment n8n runs with: its own API (`N8N_PORT`, default
 * 5678, on this machine and on `N8N_HOST`) and the judge (`ASSISTANT_JUDGE_URL` or `SYSTEMONE_JUDGE_URL`, default
 * port 8080 on this machine).
 */
export function protectedEndpointsFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Array<{ host: string; port: number; name: string }> {
  const n8nPort = Number(env.N8N_PORT ?? 5678) || 5678;
  const n8nName = "the n8n instance's own API";
  const endpoints = [{ host: 'localhost', port: n8nPort, name: n8nName }];
  const n8nHost = env.N8N_HOST?.trim();
  if (n8nHost && n8nHost !== 'localhost') endpoints.push({ host: n8nHost, port: n8nPort, name: n8nName });
  const judge = env[JUDGE_URL_SETTING] ?? env.SYSTEMONE_JUDGE_URL ?? 'http://127.0.0.1:8080';
  try {
    const url = new URL(judge);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    endpoints.push({ host: url.hostname.replace(/^\[|\]$/g, ''), port, name: 'the judge' });
  } catch {
    throw new AssistantInputError(JUDGE_URL_SETTING, `must be the judge's URL, not ${JSON.stringify(judge)}`);
  }
  return endpoints;
}
