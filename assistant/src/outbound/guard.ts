// The outbound guard: the one gate every feature that fetches a URL a user gave goes through.
//
// Only http(s); no credentials in the URL; every address the host resolves to must be an ordinary public one (not
// loopback, private, link-local, cloud metadata, CGNAT, multicast, reserved, …) unless its `host:port` is on the
// allow list (ASSISTANT_OUTBOUND_ALLOW); the protected endpoints (the n8n instance's own API, the judge) are refused
// whatever the allow list says. `fetch` checks the URL again on every redirect it follows.
//
// DNS rebinding: a plain `fetch(url)` after `check(url)` resolves the name a second time, and a hostile DNS server
// can answer a public address to the check and 127.0.0.1 to the connection. `fetch` here therefore does not use the
// global fetch: it sends the request with `node:http`/`node:https` and a `lookup` that answers the addresses the
// check approved, so the socket connects to exactly those (IP literals need no lookup and connect to the literal
// itself). TLS still verifies the certificate against the host name, and the Host header is the URL's. (Node 20's
// global fetch bundles undici without exposing its `Agent`, and undici is not a dependency here; `lookup` on
// `node:http` is the documented hook `net.connect` calls for the connection it makes, so it really pins.)
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { FieldError } from 'systemone-judge/core';

import { AssistantInputError } from '../errors';
import {
  type HostPort,
  type ResolvedAddress,
  addressRefusal,
  canonicalAddress,
  formatHostPort,
  isMetadataAddress,
  isThisMachine,
  normaliseHost,
  parseHostPort,
} from './addresses';

export type { ResolvedAddress } from './addresses';

/** A URL the guard refuses (or a redirect chain it will not follow); the field is always `url`. */
export class OutboundRefusedError extends FieldError {
  constructor(reason: string) {
    super('url', reason);
  }
}

/** A URL the guard allowed could not be fetched (connection refused, reset, TLS failure, …). */
export class OutboundFetchError extends FieldError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('url', reason);
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** An endpoint that is never reachable through the guard: the n8n instance's own API, the judge. */
export interface ProtectedEndpoint {
  host: string;
  port: number;
  /** How a refusal names it, e.g. `the n8n instance's own API`. */
  name?: string;
}

/** Resolves a host name to every address it has, as `dns.lookup(name, { all: true })` does. */
export type OutboundLookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundGuardOptions {
  /** `host:port` entries reachable even though they are loopback, private, … (see `outboundAllowList`). */
  allow?: string[];
  /** Never reachable, whatever `allow` says. Matched by resolved address and port; all of this machine is one host. */
  protect: ProtectedEndpoint[];
  /** DNS; `dns.lookup(name, { all: true, verbatim: true })` by default. Tests stub it. */
  lookup?: OutboundLookup;
  /** How many redirects `fetch` follows; 5 by default. */
  maxRedirects?: number;
}

export type OutboundDecision =
  { allowed: true; url: URL; addresses: ResolvedAddress[] } | { allowed: false; reason: string; field: 'url' };

export interface OutboundGuard {
  /** Whether `url` may be fetched, with the addresses it resolved to; never throws for a bad URL. */
  check(url: string): Promise<OutboundDecision>;
  /**
   * A guarded fetch: checks `url`, connects to the checked addresses only, follows redirects itself (checking each
   * one), and returns the final response (its `url` is the final URL). Refusals are `OutboundRefusedError`s; a
   * connection failure is an `OutboundFetchError`; an aborted `init.signal` rejects with its reason.
   */
  fetch(url: string, init?: RequestInit): Promise<Response>;
}

const DEFAULT_MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
/** Headers that describe a request body; dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
/** Credentials that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

const defaultLookup: OutboundLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export function createOutboundGuard(options: OutboundGuardOptions): OutboundGuard {
  const config = guardConfig(options);
  const check = (url: string) => checkUrl(config, url);
  return { check, fetch: (url, init) => guardedFetch(config, check, url, init) };
}

/** The guard's options, read and checked once. */
interface GuardConfig {
  allow: Set<string>;
  protect: Required<ProtectedEndpoint>[];
  lookup: OutboundLookup;
  maxRedirects: number;
}

function guardConfig(options: OutboundGuardOptions): GuardConfig {
  const allow = new Set((options.allow ?? []).map((entry) => formatHostPort(parseHostPort(entry, 'allow'))));
  const protect = (options.protect ?? []).map((endpoint, index) => protectedEndpoint(endpoint, index));
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  if (!Number.isInteger(maxRedirects) || maxRedirects < 0) {
    throw new AssistantInputError('maxRedirects', `must be a whole number of 0 or more, not ${String(maxRedirects)}`);
  }
  return { allow, protect, lookup: options.lookup ?? defaultLookup, maxRedirects };
}

const refuse = (reason: string): OutboundDecision => ({ allowed: false, reason, field: 'url' });

async function checkUrl(config: GuardConfig, input: string): Promise<OutboundDecision> {
  const target = parseTarget(input);
  if ('allowed' in target) return target;
  const { url, host, port } = target;
  const addresses = await resolveAddresses(config.lookup, host);
  if (typeof addresses === 'string') return refuse(addresses);
  const hit = await protectedHit(
    config,
    host,
    port,
    addresses.map(({ address }) => address),
  );
  if (hit !== undefined)
    return refuse(`${formatHostPort({ host, port })} is ${hit}, which can never be reached from here`);
  const refusal = addressesRefusal(config.allow, host, port, addresses);
  if (refusal !== undefined) return refuse(refusal);
  return { allowed: true, url, addresses };
}

/** The URL, its normalised host and its port; a refusal when it is not an http(s) URL without credentials. */
function parseTarget(input: string): { url: URL; host: string; port: number } | OutboundDecision {
  if (typeof input !== 'string' || input.trim() === '') return refuse('no URL was given');
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return refuse(`"${clip(input)}" is not an absolute URL; give a full address such as https://example.com/page`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(`only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')} URLs`);
  }
  if (url.username !== '' || url.password !== '') {
    return refuse('URLs with a user name or password in them are refused; remove the "user:password@" part');
  }
  const host = normaliseHost(url.hostname);
  return { url, host, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
}

async function resolveHost(lookup: OutboundLookup, host: string): Promise<ResolvedAddress[]> {
  const literal = canonicalAddress(host);
  if (literal) return [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  return await lookup(host);
}

/** Every address `host` resolves to, canonical; or why it could not be resolved. */
async function resolveAddresses(lookup: OutboundLookup, host: string): Promise<ResolvedAddress[] | string> {
  let resolved: ResolvedAddress[];
  try {
    resolved = await resolveHost(lookup, host);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return `the host ${host} could not be resolved${typeof code === 'string' ? ` (${code})` : ''}`;
  }
  if (resolved.length === 0) return `the host ${host} could not be resolved (no addresses)`;
  const addresses: ResolvedAddress[] = [];
  for (const entry of resolved) {
    const address = canonicalAddress(entry.address);
    if (!address) return `${host} resolves to "${clip(entry.address)}", which is not an IP address`;
    addresses.push({ address, family: address.includes(':') ? 6 : 4 });
  }
  return addresses;
}

/** The name of the protected endpoint `host:port` (at `addresses`) is, if it is one. */
async function protectedHit(
  config: GuardConfig,
  host: string,
  port: number,
  addresses: string[],
): Promise<string | undefined> {
  for (const endpoint of config.protect) {
    if (endpoint.port !== port) continue;
    if (endpoint.host === host) return endpoint.name;
    // localhost is this machine by definition (RFC 6761), whatever DNS says; a protected name that does not
    // resolve is still matched by name above.
    let theirs: string[] = ['127.0.0.1', '::1'];
    if (!isLocalhostName(endpoint.host)) {
      try {
        theirs = (await resolveHost(config.lookup, endpoint.host)).map(
          (entry) => canonicalAddress(entry.address) ?? entry.address,
        );
      } catch {
        theirs = [];
      }
    }
    const sameHost = (ours: string): boolean =>
      theirs.some((their) => their === ours || (isThisMachine(their) && isThisMachine(ours)));
    if (addresses.some(sameHost)) return endpoint.name;
  }
  return undefined;
}

/** Why one of the addresses may not be reached (not public, and not let through by the allow list), if so. */
function addressesRefusal(
  allow: Set<string>,
  host: string,
  port: number,
  addresses: ResolvedAddress[],
): string | undefined {
  const literal = canonicalAddress(host) !== undefined;
  const allowedByName = allow.has(formatHostPort({ host, port }));
  for (const { address } of addresses) {
    const refusal = addressRefusal(address);
    if (!refusal) continue;
    if (allow.has(formatHostPort({ host: address, port }))) continue;
    // A host name on the allow list trusts its DNS, except for a cloud metadata address: only the address itself
    // on the list lets that through.
    if (allowedByName && !isMetadataAddress(address)) continue;
    const subject = literal ? address : `${host} resolves to ${address},`;
    return `${subject} ${literal ? 'is ' : ''}${refusal.what}; ${refusal.why}`;
  }
  return undefined;
}

/** The request as it is sent to each hop: a redirect may turn it into a GET without a body. */
interface OutgoingRequest {
  method: string;
  headers: Headers;
  body: Buffer | undefined;
}

async function guardedFetch(
  config: GuardConfig,
  check: (url: string) => Promise<OutboundDecision>,
  input: string,
  init: RequestInit = {},
): Promise<Response> {
  const mode = init.redirect ?? 'follow';
  const request = await outgoingRequest(init);
  const visited = new Set<string>();
  let current = input;
  let previous: URL | undefined;
  let redirects = 0;
  for (;;) {
    const decision = await check(current);
    if (!decision.allowed) {
      throw new OutboundRefusedError(
        previous ? `${previous.href} redirects to ${current}, which is refused: ${decision.reason}` : decision.reason,
      );
    }
    const { url, addresses } = decision;
    visited.add(url.href);
    const response = await pinnedRequest(url, addresses, { ...request, signal: init.signal ?? undefined });
    const location = response.headers.get('location');
    if (!REDIRECT_STATUSES.has(response.status) || location === null || mode === 'manual') {
      return withUrl(response, url, redirects > 0);
    }
    await response.body?.cancel();
    if (mode === 'error') throw new OutboundRefusedError(`${url.href} redirects, and redirects were not allowed`);
    const next = redirectTarget(input, url, location, visited);
    if (redirects >= config.maxRedirects) {
      throw new OutboundRefusedError(
        `${input} redirects more than ${config.maxRedirects} times; the redirects were stopped`,
      );
    }
    redirects += 1;
    followRedirect(request, response.status, url, next);
    previous = url;
    current = next.href;
  }
}

/** The method, headers and body of `init`, as sent (the Host header is always the checked URL's own). */
async function outgoingRequest(init: RequestInit): Promise<OutgoingRequest> {
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = new Headers(init.headers);
  headers.delete('host');
  let body: Buffer | undefined;
  if (init.body !== undefined && init.body !== null) {
    if (method === 'GET' || method === 'HEAD') throw new TypeError(`a ${method} request cannot have a body`);
    const wrapped = new Response(init.body);
    const type = wrapped.headers.get('content-type');
    if (type && !headers.has('content-type')) headers.set('content-type', type);
    body = Buffer.from(await wrapped.arrayBuffer());
  }
  return { method, headers, body };
}

/** Where `url`'s redirect to `location` leads; refused when invalid or back to a URL already visited. */
function redirectTarget(input: string, url: URL, location: string, visited: Set<string>): URL {
  let next: URL;
  try {
    next = new URL(location, url);
  } catch {
    throw new OutboundRefusedError(`${url.href} redirects to an invalid location "${clip(location)}"`);
  }
  next.hash = '';
  if (visited.has(next.href)) {
    throw new OutboundRefusedError(`${input} redirects in a loop (${url.href} sends back to ${next.href})`);
  }
  return next;
}

/** Adjusts `request` for the next hop, as fetch does. */
function followRedirect(request: OutgoingRequest, status: number, from: URL, to: URL): void {
  // 303 (and 301/302 after a POST) continue as a GET without the body.
  if (status === 303 ? request.method !== 'HEAD' : (status === 301 || status === 302) && request.method === 'POST') {
    request.method = 'GET';
    request.body = undefined;
    for (const name of BODY_HEADERS) request.headers.delete(name);
  }
  if (to.origin !== from.origin) for (const name of CREDENTIAL_HEADERS) request.headers.delete(name);
}

function protectedEndpoint(endpoint: ProtectedEndpoint, index: number): Required<ProtectedEndpoint> {
  const field = `protect[${index}]`;
  if (!endpoint || typeof endpoint.host !== 'string' || endpoint.host.trim() === '') {
    throw new AssistantInputError(field, 'needs a host');
  }
  const entry = formatHostPort({ host: normaliseHost(endpoint.host), port: endpoint.port });
  const { host, port }: HostPort = parseHostPort(entry, field);
  return { host, port, name: endpoint.name ?? "a protected service (this n8n instance's API or the judge)" };
}

interface PinnedInit {
  method: string;
  headers: Headers;
  body: Buffer | undefined;
  signal: AbortSignal | undefined;
}

/** Sends one request to `url`, connecting only to `addresses` (the ones the check approved), without redirects. */
function pinnedRequest(url: URL, addresses: ResolvedAddress[], init: PinnedInit): Promise<Response> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) {
      callback(null, addresses);
      return;
    }
    const wanted = addresses.find((entry) => !options.family || entry.family === options.family) ?? addresses[0];
    callback(null, wanted.address, wanted.family);
  };
  const headers: http.OutgoingHttpHeaders = {};
  init.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (init.body) headers['content-length'] = String(init.body.length);

  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<Response>((resolve, reject) => {
    const fail = (error: Error): void => {
      if (init.signal?.aborted) reject(init.signal.reason);
      else reject(new OutboundFetchError(`could not fetch ${url.href}: ${error.message}`, { cause: error }));
    };
    const request = transport.request(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: init.method,
        headers,
        agent: false, // a fresh connection: a pooled socket may have been connected by unguarded code
        lookup: pinned,
        signal: init.signal,
      },
      (incoming) => {
        try {
          resolve(toResponse(incoming, init.method));
        } catch (error) {
          incoming.destroy();
          fail(error as Error);
        }
      },
    );
    request.on('error', fail);
    request.end(init.body);
  });
}

function toResponse(incoming: http.IncomingMessage, method: string): Response {
  const status = incoming.statusCode ?? 0;
  const headers = new Headers();
  for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2)
    headers.append(incoming.rawHeaders[i], incoming.rawHeaders[i + 1]);
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(status)) {
    incoming.resume();
    return new Response(null, { status, statusText: incoming.statusMessage, headers });
  }
  // As fetch does: the body is decoded (gzip, deflate, br), the headers stay as sent.
  const decoders = (headers.get('content-encoding') ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse()
    .map(decoder);
  let stream: Readable = incoming;
  if (decoders.length > 0 && decoders.every((entry) => entry !== undefined)) {
    stream = pipeline([incoming, ...(decoders as NodeJS.ReadWriteStream[])], () => undefined) as unknown as Readable;
  }
  const web = Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
  return new Response(web, { status, statusText: incoming.statusMessage, headers });
}

function decoder(coding: string): NodeJS.ReadWriteStream | undefined {
  if (coding === 'gzip' || coding === 'x-gzip') return zlib.createGunzip();
  if (coding === 'deflate') return zlib.createInflate();
  if (coding === 'br') return zlib.createBrotliDecompress();
  return undefined;
}

/** A constructed Response has an empty `url`; the guarded fetch's says where it ended up, as fetch's does. */
function withUrl(response: Response, url: URL, redirected: boolean): Response {
  Object.defineProperty(response, 'url', { value: url.href });
  Object.defineProperty(response, 'redirected', { value: redirected });
  return response;
}

function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
