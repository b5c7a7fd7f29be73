// Who may use the open playground: whether the open mode is on (and why), and which requests come from its own page.
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../../protocol/errors';
import type { PlaygroundSettings } from './settings';
import type { PlaygroundStatus } from './types';

/** 127.0.0.0/8, ::1 and IPv4-mapped loopback. */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === '::1' || bare === 'localhost') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/** The host name of a Host header, without the port. */
function hostName(header: string | undefined): string {
  if (!header) return '';
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  const colon = header.lastIndexOf(':');
  return colon === -1 ? header : header.slice(0, colon);
}

/** Whether the open mode is on: as set, or else on when the server listens on loopback only. */
export function decideStatus(settings: PlaygroundSettings, address: AddressInfo | string | null): PlaygroundStatus {
  const listening = typeof address === 'string' ? address : (address?.address ?? '');
  const loopback = typeof address !== 'string' && isLoopbackAddress(listening);
  if (!settings.enabled) return { enabled: false, open: false, reason: 'playground.enabled is false' };
  if (settings.open === true) return { enabled: true, open: true, reason: 'playground.open is true' };
  if (settings.open === false) return { enabled: true, open: false, reason: 'playground.open is false' };
  if (loopback) return { enabled: true, open: true, reason: `the server listens on loopback (${listening})` };
  return {
    enabled: true,
    open: false,
    reason:
      `the server listens on ${listening || 'a non-loopback address'}, not on loopback; ` +
      'set playground.open (or JUDGE_PLAYGROUND_OPEN) to true to allow judging without a key',
  };
}

/** Same-origin only: the request comes from a page of this site. `who` starts the refusal's sentence. */
export function checkSameOrigin(req: IncomingMessage, who: string): void {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new ApiError(403, `${who} (a cross-site request was refused).`, 'permission_error');
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host}` && origin !== `https://${req.headers.host}`) {
    throw new ApiError(403, `${who} (the Origin is another site).`, 'permission_error');
  }
}

/** Same-origin only, and (on loopback) only under a loopback host name: no cross-site or DNS-rebinding use of the
 * open playground, which judges without a key. */
export function checkOrigin(req: IncomingMessage, address: AddressInfo | string | null): void {
  const who = 'The playground only judges for its own page';
  checkSameOrigin(req, who);
  if (typeof address !== 'string' && isLoopbackAddress(address?.address ?? '')) {
    if (!isLoopbackAddress(hostName(req.headers.host))) {
      throw new ApiError(
        403,
        'The open playground answers only under a loopback host name (localhost, 127.0.0.1, [::1]).',
        'permission_error',
      );
    }
  }
}
