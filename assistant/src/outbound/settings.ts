// The outbound guard's one setting: ASSISTANT_OUTBOUND_ALLOW, the `host:port` entries it lets through even though
// they are loopback, private or otherwise refused (a local service the operator wants the assistant to reach, or the
// tests' loopback servers).
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
