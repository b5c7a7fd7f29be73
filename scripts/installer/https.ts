// HTTPS in front of the stack: the Caddyfile and, without a domain, a self-signed certificate for the server's IP.
// With a domain Caddy gets and renews a certificate itself. Without one, Caddy serves the self-signed certificate made
// here; Telegram accepts it when it is uploaded with setWebhook. The judge's API (/v1/…), console and playground go
// to the judge, all the rest (webhooks, the MCP server, the editor) to n8n. The server's IP comes from its own interfaces, never from an
// outside lookup.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { readEnvFile, writeEnvFile } from './env-file';
import { flagValue } from './cli-flags';

export interface HttpsOptions {
  /** The domain (Caddy's automatic HTTPS), or null for the server IP with a self-signed certificate. */
  domain: string | null;
  /** The server's public IP, used without a domain. */
  ip: string;
  /** host:port of n8n and of the judge as Caddy reaches them (n8n:5678 in compose, 127.0.0.1:5678 natively). */
  n8n: string;
  judge: string;
  /** Where the self-signed certificate and key are, as Caddy sees them. */
  certificateFile: string;
  keyFile: string;
  /** The ACME account e-mail (optional). */
  email?: string;
  /** Caddy's own local CA instead of a public certificate (tests: `tls internal`). */
  internalTls?: boolean;
}

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** The first non-internal IPv4 address of this machine's interfaces. */
export function serverIp(interfaces = networkInterfaces()): string {
  for (const entries of Object.values(interfaces)) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv4' && !entry.internal) return entry.address;
    }
  }
  throw new Error('no network interface with an IPv4 address: give the server IP');
}

export function renderCaddyfile(options: HttpsOptions): string {
  for (const [field, value] of [
    ['n8n', options.n8n],
    ['judge', options.judge],
  ] as const) {
    if (!HOST_PORT.test(value)) throw new Error(`${field}: must be host:port, e.g. n8n:5678`);
  }
  if (!options.domain && !IPV4.test(options.ip)) throw new Error(`ip: "${options.ip}" is not an IPv4 address`);
  if (options.email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(options.email)) {
    throw new Error(`email: "${options.email}" is not an e-mail address`);
  }
  const site = options.domain ?? options.ip;
  // Without a domain clients connect by IP and send no SNI (Telegram included); Caddy then looks the certificate up
  // by the address the connection arrived on, which in Docker is the container's, so it is told the IP.
  const globals = [
    ...(options.email ? [`\temail ${options.email}`] : []),
    ...(options.domain ? [] : [`\tdefault_sni ${options.ip}`]),
  ];
  const global = globals.length > 0 ? `{\n${globals.join('\n')}\n}\n\n` : '';
  const tls = options.internalTls
    ? '\ttls internal\n'
    : options.domain
      ? ''
      : `\ttls ${options.certificateFile} ${options.keyFile}\n`;
  return (
    `${global}${site} {\n` +
    tls +
    '\tencode gzip\n' +
    '\theader {\n\t\tStrict-Transport-Security "max-age=31536000"\n\t\t-Server\n\t}\n' +
    // The judge's API, its operator's console and its playground; everything else is n8n's.
    '\t@judge path /v1/* /console /console/* /playground /playground/*\n' +
    `\thandle @judge {\n\t\treverse_proxy ${options.judge}\n\t}\n` +
    `\thandle {\n\t\treverse_proxy ${options.n8n}\n\t}\n` +
    '}\n'
  );
}

/** Makes a self-signed certificate for the IP (subjectAltName IP:…), valid ten years, with openssl. */
/** The certificate there is for `ip` and valid for at least 30 more days (a re-run keeps it). */
function certificateStillFits(ip: string, certificateFile: string, keyFile: string): boolean {
  if (!existsSync(certificateFile) || !existsSync(keyFile)) return false;
  try {
    const text = execFileSync('openssl', ['x509', '-in', certificateFile, '-noout', '-text', '-checkend', '2592000'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return text.includes(`IP Address:${ip}`);
  } catch {
    return false;
  }
}

/**
 * Makes the self-signed certificate for `ip`, unless the one there still fits: a re-run (an upgrade) must not swap
 * it under the running Caddy, which keeps serving the one it loaded, nor under Telegram's registration.
 */
export function makeSelfSignedCertificate(ip: string, certificateFile: string, keyFile: string): void {
  if (!IPV4.test(ip)) throw new Error(`ip: "${ip}" is not an IPv4 address`);
  if (certificateStillFits(ip, certificateFile, keyFile)) return;
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '3650',
      '-subj',
      `/CN=${ip}`,
      '-addext',
      `subjectAltName=IP:${ip}`,
      '-keyout',
      keyFile,
      '-out',
      certificateFile,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
}

// The command setup.sh runs (as root): writes the Caddyfile (and without a domain the certificate) from the answers
// in local.env, and records there the public URL and the certificate Telegram gets.
//   tsx scripts/installer/https.ts --env /var/lib/judge-assistant/local.env --caddy-dir /etc/caddy
//   --compose: for docker-compose.yml's caddy service (n8n:5678, judge:8787, the certificate at /etc/caddy/certs in
//   the container, and the certificate for assistant-setup in compose.env, not here)
//   --ip ADDRESS, --public-port PORT (a published port other than 443), --internal-tls (tests: Caddy's local CA)
if (require.main === module) {
  try {
    const argv = process.argv.slice(2);
    const flag = (name: string) => flagValue(argv, name);
    const envFile = flag('--env');
    const caddyDir = flag('--caddy-dir') ?? '/etc/caddy';
    const compose = argv.includes('--compose');
    const publicPort = flag('--public-port');
    if (publicPort !== undefined && !/^\d{1,5}$/.test(publicPort)) throw new Error('--public-port: a TCP port');
    if (!envFile) throw new Error('--env: the local.env with the answers is required');
    const settings = readEnvFile(envFile);
    const domain = settings.ASSISTANT_DOMAIN?.trim() || null;
    const ip = flag('--ip') ?? serverIp();
    const certsSeenByCaddy = compose ? '/etc/caddy/certs' : `${caddyDir}/certs`;
    mkdirSync(`${caddyDir}/certs`, { recursive: true, mode: 0o750 });
    if (!domain) makeSelfSignedCertificate(ip, `${caddyDir}/certs/server.pem`, `${caddyDir}/certs/server.key`);
    const caddyfile = renderCaddyfile({
      domain,
      ip,
      n8n: compose ? 'n8n:5678' : `127.0.0.1:${settings.N8N_PORT || '5678'}`,
      judge: compose ? 'judge:8787' : `127.0.0.1:${settings.JUDGE_PORT || '8787'}`,
      certificateFile: `${certsSeenByCaddy}/server.pem`,
      keyFile: `${certsSeenByCaddy}/server.key`,
      internalTls: argv.includes('--internal-tls'),
    });
    writeFileSync(`${caddyDir}/Caddyfile`, caddyfile);
    const site = `${domain ?? ip}${publicPort && publicPort !== '443' ? `:${publicPort}` : ''}`;
    // Telegram's webhook goes to this address; without a domain the certificate is uploaded with it.
    writeEnvFile(envFile, {
      N8N_PUBLIC_URL: `https://${site}/`,
      ...(compose ? {} : { ASSISTANT_WEBHOOK_CERTIFICATE: domain ? '' : `${caddyDir}/certs/server.pem` }),
    });
    console.log(
      domain
        ? `HTTPS: https://${site}/ (Caddy gets the certificate)`
        : `HTTPS: https://${site}/ with a self-signed certificate (${caddyDir}/certs/server.pem; Telegram gets it with setWebhook)`,
    );
  } catch (error) {
    console.error(`https: ${(error as Error).message}`);
    process.exit(1);
  }
}
