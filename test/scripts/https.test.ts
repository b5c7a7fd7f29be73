// The HTTPS part of the installer (scripts/installer/https.ts): the Caddyfile for a domain and for the server IP
// with a self-signed certificate, each accepted by `caddy validate` (Debian's Caddy 2.6); the certificate names the
// IP; the server IP comes from the local interfaces; bad settings are named.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSelfSignedCertificate, renderCaddyfile, serverIp } from '../../scripts/installer/https';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'https-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function validate(caddyfile: string): string {
  const file = path.join(dir, `Caddyfile-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, caddyfile);
  // caddy validate loads the config (certificates included) without serving; HOME for its data folder.
  return execFileSync('caddy', ['validate', '--config', file, '--adapter', 'caddyfile'], {
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).toString();
}

describe('the Caddyfile', () => {
  it('with a domain: automatic HTTPS, /v1 to the judge and the rest to n8n', () => {
    const caddyfile = renderCaddyfile({
      domain: 'bot.example.com',
      ip: '203.0.113.7',
      n8n: 'n8n:5678',
      judge: 'judge:8787',
      certificateFile: '/unused.pem',
      keyFile: '/unused.key',
      email: 'ops@example.com',
    });
    expect(caddyfile).toMatch(/^\{\n\temail ops@example.com\n\}\n\nbot\.example\.com \{\n/);
    expect(caddyfile).not.toContain('tls ');
    expect(caddyfile).toContain('\t@judge path /v1/* /console /console/* /playground /playground/*\n');
    expect(caddyfile).toContain('\thandle @judge {\n\t\treverse_proxy judge:8787\n\t}');
    expect(validate(caddyfile)).toBeDefined();
  });

  it('without a domain: the server IP with the self-signed certificate made for it', () => {
    const certificate = path.join(dir, 'ip.pem');
    const key = path.join(dir, 'ip.key');
    makeSelfSignedCertificate('203.0.113.7', certificate, key);
    const text = execFileSync('openssl', ['x509', '-in', certificate, '-noout', '-text']).toString();
    expect(text).toContain('IP Address:203.0.113.7');
    const caddyfile = renderCaddyfile({
      domain: null,
      ip: '203.0.113.7',
      n8n: '127.0.0.1:5678',
      judge: '127.0.0.1:8787',
      certificateFile: certificate,
      keyFile: key,
    });
    expect(caddyfile).toContain(`203.0.113.7 {\n\ttls ${certificate} ${key}\n`);
    expect(validate(caddyfile)).toBeDefined();
  });

  it('keeps the certificate on a re-run (Caddy keeps serving the one it loaded), and makes a new one for another IP', () => {
    const certificate = path.join(dir, 'rerun.pem');
    const key = path.join(dir, 'rerun.key');
    makeSelfSignedCertificate('203.0.113.8', certificate, key);
    const first = readFileSync(certificate, 'utf8');
    makeSelfSignedCertificate('203.0.113.8', certificate, key);
    expect(readFileSync(certificate, 'utf8')).toBe(first);
    makeSelfSignedCertificate('203.0.113.9', certificate, key);
    expect(readFileSync(certificate, 'utf8')).not.toBe(first);
    const text = execFileSync('openssl', ['x509', '-in', certificate, '-noout', '-text']).toString();
    expect(text).toContain('IP Address:203.0.113.9');
  });

  it('names bad settings, and finds the IP on the local interfaces', () => {
    const base = {
      domain: null,
      ip: '203.0.113.7',
      n8n: 'n8n:5678',
      judge: 'judge:8787',
      certificateFile: 'c',
      keyFile: 'k',
    };
    expect(() => renderCaddyfile({ ...base, ip: 'my-server' })).toThrow('ip: "my-server" is not an IPv4 address');
    expect(() => renderCaddyfile({ ...base, n8n: 'http://n8n' })).toThrow('n8n: must be host:port');
    expect(() => renderCaddyfile({ ...base, email: 'nobody' })).toThrow('email: "nobody" is not an e-mail address');
    expect(
      serverIp({
        lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '', cidr: null }],
        eth0: [{ address: '10.1.2.3', family: 'IPv4', internal: false, netmask: '255.0.0.0', mac: '', cidr: null }],
      }),
    ).toBe('10.1.2.3');
    expect(() => serverIp({})).toThrow(/no network interface with an IPv4 address/);
  });
});

describe('scripts/installer/https.ts', () => {
  it('writes the Caddyfile and, without a domain, the certificate, from the answers in local.env', () => {
    const caddyDir = path.join(dir, 'etc-caddy');
    const envFile = path.join(dir, 'local.env');
    writeFileSync(envFile, 'ASSISTANT_DOMAIN=\nN8N_PORT=5678\nJUDGE_PORT=8787\n');
    const output = execFileSync('node_modules/.bin/tsx', [
      'scripts/installer/https.ts',
      '--env',
      envFile,
      '--caddy-dir',
      caddyDir,
      '--ip',
      '198.51.100.4',
    ]).toString();
    expect(output).toContain('HTTPS: https://198.51.100.4/ with a self-signed certificate');
    expect(existsSync(path.join(caddyDir, 'certs', 'server.key'))).toBe(true);
    expect(validate(readFileSync(path.join(caddyDir, 'Caddyfile'), 'utf8'))).toBeDefined();
    // The public URL Telegram posts to, and the certificate uploaded with setWebhook; the other settings kept.
    expect(readFileSync(envFile, 'utf8')).toContain('JUDGE_PORT=8787\n');
    expect(readFileSync(envFile, 'utf8')).toContain('N8N_PUBLIC_URL=https://198.51.100.4/\n');
    expect(readFileSync(envFile, 'utf8')).toContain(
      `ASSISTANT_WEBHOOK_CERTIFICATE=${path.join(caddyDir, 'certs', 'server.pem')}\n`,
    );
    writeFileSync(envFile, 'ASSISTANT_DOMAIN=bot.example.org\n');
    const withDomain = execFileSync('node_modules/.bin/tsx', [
      'scripts/installer/https.ts',
      '--env',
      envFile,
      '--caddy-dir',
      caddyDir,
      '--ip',
      '198.51.100.4',
    ]).toString();
    expect(withDomain).toContain('HTTPS: https://bot.example.org/ (Caddy gets the certificate)');
    expect(readFileSync(path.join(caddyDir, 'Caddyfile'), 'utf8')).toMatch(/^bot\.example\.org \{\n\tencode gzip/);
    expect(readFileSync(envFile, 'utf8')).toContain(
      'N8N_PUBLIC_URL=https://bot.example.org/\nASSISTANT_WEBHOOK_CERTIFICATE=\n',
    );
  });
});
