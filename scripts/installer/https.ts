// HTTPS in front of the stack: the Caddyfile and, without a domain, a self-signed certificate for the server's IP.
// With a domain Caddy gets and renews a certificate itself. Without one, Caddy serves the self-signed certificate made
// here; Telegram accepts it when it is uploaded with setWebhook. The judge's API (/v1/…) goes to the judge, all the
// rest (webhooks, the MCP server, the editor) to n8n. The server's IP comes from its own interfaces, never from an
// outside lookup.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { readEnvFile, writeEnvFile } from './env-file';

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
  const global = options.email ? `{\n\temail ${options.email}\n}\n\n` : '';
  const tls = options.domain ? '' : `\ttls ${options.certificateFile} ${options.keyFile}\n`;
  return (
    `${global}${site} {\n` +
    tls +
    '\tencode gzip\n' +
    '\theader {\n\t\tStrict-Transport-Security "max-age=31536000"\n\t\t-Server\n\t}\n' +
    `\thandle /v1/* {\n\t\treverse_proxy ${options.judge}\n\t}\n` +
    `\thandle {\n\t\treverse_proxy ${options.n8n}\n\t}\n` +
    '}\n'
  );
}

/** Makes a self-signed certificate for the IP (subjectAltName IP:…), valid ten years, with openssl. */
export function makeSelfSignedCertificate(ip: string, certificateFile: string, keyFile: string): void {
  if (!IPV4.test(ip)) throw new Error(`ip: "${ip}" is not an IPv4 address`);
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

// The command setup.sh runs (as root): writes the Caddyfile (and without a domain the certificate) for the native
// stack, from the answers in local.env, and records there the public URL and the certificate Telegram gets.
//   tsx scripts/installer/https.ts --env /var/lib/judge-assistant/local.env --caddy-dir /etc/caddy
if (require.main === module) {
  try {
    const argv = process.argv.slice(2);
    const flag = (name: string) => {
      const at = argv.indexOf(name);
      const value = at === -1 ? undefined : argv[at + 1];
      if (at !== -1 && (value === undefined || value.startsWith('--'))) throw new Error(`${name}: needs a value`);
      return value;
    };
    const envFile = flag('--env');
    const caddyDir = flag('--caddy-dir') ?? '/etc/caddy';
    if (!envFile) throw new Error('--env: the local.env with the answers is required');
    const settings = readEnvFile(envFile);
    const domain = settings.ASSISTANT_DOMAIN?.trim() || null;
    const ip = flag('--ip') ?? serverIp();
    const certificateFile = `${caddyDir}/certs/server.pem`;
    const keyFile = `${caddyDir}/certs/server.key`;
    mkdirSync(`${caddyDir}/certs`, { recursive: true, mode: 0o750 });
    if (!domain) makeSelfSignedCertificate(ip, certificateFile, keyFile);
    const caddyfile = renderCaddyfile({
      domain,
      ip,
      n8n: `127.0.0.1:${settings.N8N_PORT || '5678'}`,
      judge: `127.0.0.1:${settings.JUDGE_PORT || '8787'}`,
      certificateFile,
      keyFile,
    });
    writeFileSync(`${caddyDir}/Caddyfile`, caddyfile);
    // Telegram's webhook goes to this address; without a domain the certificate is uploaded with it (local.ts).
    writeEnvFile(envFile, {
      N8N_PUBLIC_URL: `https://${domain ?? ip}/`,
      ASSISTANT_WEBHOOK_CERTIFICATE: domain ? '' : certificateFile,
    });
    console.log(
      domain
        ? `HTTPS: https://${domain}/ (Caddy gets the certificate)`
        : `HTTPS: https://${ip}/ with a self-signed certificate (${certificateFile}; Telegram gets it with setWebhook)`,
    );
  } catch (error) {
    console.error(`https: ${(error as Error).message}`);
    process.exit(1);
  }
}
