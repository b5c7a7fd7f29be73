// What an IP address is (public, loopback, private, link-local, cloud metadata, …) and `host:port` entries, for the
// outbound guard. Pure functions over ipaddr.js; no DNS, no sockets.
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

import { AssistantInputError } from '../errors';

/** One address a host name resolves to, as `dns.lookup(name, { all: true })` gives it. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** A host and a port, normalised: lower case, no brackets around IPv6, no trailing dot, IP literals canonical. */
export interface HostPort {
  host: string;
  port: number;
}

/** The well-known cloud metadata endpoints, by canonical address. */
const METADATA: Record<string, string> = {
  '169.254.169.254': 'the cloud metadata service (AWS, GCP, Azure, OpenStack…)',
  '169.254.170.2': 'the AWS ECS task metadata service',
  'fd00:ec2::254': "AWS's IPv6 metadata service",
  '100.100.100.200': "Alibaba Cloud's metadata service",
  '168.63.129.16': "Azure's host service (WireServer)",
};

/** How each refused range is named in a reason, and why it is refused. */
const RANGES: Record<string, { what: string; why: string }> = {
  loopback: { what: 'a loopback address (this machine itself)', why: 'requests to this machine are refused' },
  private: { what: 'a private address', why: 'outbound requests to private networks are refused' },
  uniqueLocal: {
    what: 'a private (unique local) IPv6 address',
    why: 'outbound requests to private networks are refused',
  },
  linkLocal: { what: 'a link-local address', why: 'requests to link-local networks are refused' },
  unspecified: { what: 'an unspecified address', why: 'it stands for this machine and is refused' },
  carrierGradeNat: {
    what: 'a carrier-grade NAT (shared) address',
    why: "outbound requests to a provider's internal network are refused",
  },
  multicast: { what: 'a multicast address', why: 'only ordinary (unicast) public addresses can be reached' },
  broadcast: { what: 'the broadcast address', why: 'only ordinary (unicast) public addresses can be reached' },
};
const SPECIAL = {
  what: 'a reserved or special-purpose address',
  why: 'only ordinary (unicast) public addresses can be reached',
};

/** A parsed address: its canonical text and the IPv4 address it stands for, when it embeds one. */
interface Parsed {
  canonical: string;
  effective: ipaddr.IPv4 | ipaddr.IPv6;
}

function parse(address: string): Parsed | undefined {
  const text = address.replace(/^\[|\]$/g, '');
  if (!isIP(text)) return undefined;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(text);
  } catch {
    return undefined;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const range = v6.range();
    // ::ffff:a.b.c.d is a.b.c.d; NAT64's well-known 64:ff9b::a.b.c.d reaches a.b.c.d through the NAT64 gateway.
    if (range === 'ipv4Mapped') {
      const v4 = v6.toIPv4Address();
      return { canonical: v4.toString(), effective: v4 };
    }
    const bytes = v6.toByteArray();
    if (range === 'rfc6052' && bytes.slice(0, 12).every((byte, i) => byte === NAT64_PREFIX[i])) {
      return { canonical: v6.toString(), effective: ipaddr.fromByteArray(bytes.slice(12)) };
    }
  }
  return { canonical: parsed.toString(), effective: parsed };
}

/** 64:ff9b::/96 (RFC 6052), the well-known NAT64 prefix. */
const NAT64_PREFIX = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0];

/** The canonical text of an IP literal (`::ffff:7f00:1` → `127.0.0.1`), or undefined for anything else. */
export function canonicalAddress(address: string): string | undefined {
  return parse(address)?.canonical;
}

/** Why an address may not be reached, as `{ what, why }` phrases, or undefined when it is an ordinary public one. */
export function addressRefusal(address: string): { what: string; why: string } | undefined {
  const parsed = parse(address);
  if (!parsed) return { what: 'not an IP address', why: 'only IP addresses can be connected to' };
  const metadata = METADATA[parsed.effective.toString()] ?? METADATA[parsed.canonical];
  if (metadata) return { what: metadata, why: 'requests to cloud metadata services are refused' };
  const range = parsed.effective.range();
  if (range === 'unicast') return undefined;
  return RANGES[range] ?? SPECIAL;
}

/** Whether the address is a cloud metadata endpoint: these are never allowed by a host name, only by the address. */
export function isMetadataAddress(address: string): boolean {
  const parsed = parse(address);
  return parsed !== undefined && (METADATA[parsed.effective.toString()] ?? METADATA[parsed.canonical]) !== undefined;
}

/**
 * Whether the address is this machine: loopback (127/8, ::1), unspecified (0.0.0.0, ::, which connect to this
 * machine), or the address of one of its network interfaces. A service listening on 0.0.0.0 answers on all of them.
 */
export function isThisMachine(address: string): boolean {
  const parsed = parse(address);
  if (!parsed) return false;
  const range = parsed.effective.range();
  if (range === 'loopback' || range === 'unspecified') return true;
  return localInterfaceAddresses().has(parsed.canonical);
}

function localInterfaceAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      const canonical = canonicalAddress(entry.address.replace(/%.*$/, ''));
      if (canonical) addresses.add(canonical);
    }
  }
  return addresses;
}

/** Lower case, no brackets, no trailing dot, IP literals in canonical form (`0x7f.1` → `127.0.0.1`). */
export function normaliseHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return canonicalAddress(bare) ?? bare;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@?#]+):(\d{1,5})$/;

/**
 * Parses one `host:port` entry (`localhost:8080`, `127.0.0.1:3000`, `[::1]:8080`, `example.com:443`). IPv4 literals
 * in any form WHATWG URLs accept (`2130706433`, `0x7f.1`) are normalised. A bad entry is an `AssistantInputError` on
 * `field`, naming the entry.
 */
export function parseHostPort(entry: string, field: string): HostPort {
  const bad = (why: string): AssistantInputError =>
    new AssistantInputError(field, `"${entry}" is not a host:port entry (${why}; e.g. localhost:8080 or [::1]:8080)`);
  const match = HOST_PORT.exec(entry.trim());
  if (!match) throw bad('expected a host, a colon and a port');
  const port = Number(match[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw bad('the port must be 1 to 65535');
  let hostname: string;
  try {
    // The URL parser normalises host names the way every request URL is normalised before it is checked.
    hostname = new URL(`http://${match[1]}/`).hostname;
  } catch {
    throw bad('the host is not a valid host name or IP address');
  }
  if (!hostname) throw bad('the host is empty');
  return { host: normaliseHost(hostname), port };
}

/** `host:port` with brackets around IPv6, for messages and allow-list keys. */
export function formatHostPort({ host, port }: HostPort): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}
