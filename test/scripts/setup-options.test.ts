// setup.sh's options for another compose project, a provider's base URL, a published HTTPS port other than 443, and
// the native path without systemd as PID 1 (--no-systemd, --caddy-dir), read from its --dry-run output (the install
// test, scripts/test-docker.sh, runs the Docker ones for real).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../scripts/runtime/n8n';

const script = path.join(REPO_ROOT, 'setup.sh');
const state = mkdtempSync(path.join(tmpdir(), 'setup-options-'));
afterAll(() => rmSync(state, { recursive: true, force: true }));

function setup(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return setupWith({}, ...args);
}

function setupWith(env: Record<string, string>, ...args: string[]) {
  const result = spawnSync('bash', [script, '--dry-run', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('setup.sh --project, --provider-base-url and HTTPS_PORT', () => {
  it('runs compose in the project named, and passes the base URL to the questions', () => {
    const run = setup(
      '--prefix',
      '/opt/x',
      '--state',
      state,
      '--project',
      'install-test-1',
      '--provider-base-url',
      'http://127.0.0.1:9000/v1',
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      `main.ts --env ${state}/compose.env --containers --provider-base-url http://127.0.0.1:9000/v1`,
    );
    expect(run.stdout).toMatch(
      /\+ docker[- ]compose -p install-test-1 --env-file \S+ -f \/opt\/x\/docker-compose\.yml up -d --build/,
    );
    expect(run.stdout).not.toMatch(/-p judge-assistant /);
  });

  it('names a published HTTPS port other than 443 in the public URL (HTTPS_PORT in the settings)', () => {
    writeFileSync(path.join(state, 'compose.env'), 'HTTPS_PORT=18443\n', { mode: 0o600 });
    const run = setup('--prefix', '/opt/x', '--state', state);
    expect(run.stdout).toContain(
      `https.ts --compose --env ${state}/compose.env --caddy-dir ${state}/caddy --public-port 18443`,
    );
    rmSync(path.join(state, 'compose.env'));
    expect(setup('--prefix', '/opt/x', '--state', state).stdout).not.toContain('--public-port');
  });

  it('takes the project named down with its volumes on --uninstall --purge', () => {
    const prefix = path.join(state, 'prefix');
    mkdirSync(prefix);
    writeFileSync(path.join(prefix, 'docker-compose.yml'), 'services: {}\n');
    const run = setup('--uninstall', '--purge', '--prefix', prefix, '--state', state, '--project', 'install-test-1');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /\+ docker[- ]compose -p install-test-1 --env-file \S+ -f \S+ down --remove-orphans --volumes/,
    );
    expect(run.stdout).toContain(`+ rm -rf ${prefix}`);
    expect(run.stdout).toContain(`+ rm -rf ${state}`);
  });

  it('--native --no-systemd --caddy-dir: Chromium as root first, the unit written to the state and verified, nothing started', () => {
    const run = setup(
      '--native',
      '--no-systemd',
      '--caddy-dir',
      '/tmp/x-caddy',
      '--prefix',
      '/opt/x',
      '--state',
      '/var/lib/x',
    );
    expect(run.status).toBe(0);
    const chromium = run.stdout.indexOf('== Chromium for the browser service (as root)');
    expect(chromium).toBeGreaterThan(-1);
    expect(chromium).toBeLessThan(run.stdout.indexOf('runuser -u judge-assistant'));
    expect(run.stdout).toContain('https.ts --env /var/lib/x/local.env --caddy-dir /tmp/x-caddy');
    expect(run.stdout).toContain('+ write /var/lib/x/judge-assistant.service:');
    expect(run.stdout).toContain('ExecStart=/opt/x/node_modules/.bin/tsx /opt/x/scripts/runtime/local.ts');
    expect(run.stdout).toContain('+ systemd-analyze verify /var/lib/x/judge-assistant.service');
    expect(run.stdout).not.toContain('systemctl');
    const uninstall = setup(
      '--native',
      '--no-systemd',
      '--caddy-dir',
      '/tmp/x-caddy',
      '--uninstall',
      '--purge',
      '--prefix',
      '/opt/x',
      '--state',
      '/var/lib/x',
    );
    expect(uninstall.stdout).toContain('+ rm -rf /tmp/x-caddy/certs');
    expect(uninstall.stdout).not.toContain('systemctl');
    const docker = setup('--no-systemd');
    expect(docker.status).toBe(2);
    expect(docker.stderr).toMatch(/--no-systemd and --caddy-dir are for --native/);
  });

  it('--native: Redis installed for queue mode (N8N_QUEUE_MODE=true in local.env), a Node/npm already there kept', () => {
    const native = mkdtempSync(path.join(tmpdir(), 'setup-native-'));
    try {
      const apt = (stdout: string) => stdout.split('\n').find((line) => line.startsWith('+ apt-get install')) ?? '';
      const plain = apt(setup('--native', '--no-systemd', '--state', native).stdout);
      expect(plain).toContain('caddy');
      expect(plain).not.toContain('redis-server');
      // The test machine has npm (it runs vitest): Debian's npm would conflict with NodeSource's nodejs.
      expect(plain).not.toMatch(/ npm( |$)/);
      writeFileSync(path.join(native, 'local.env'), 'N8N_QUEUE_MODE=true\n', { mode: 0o600 });
      // Installed when missing (REDIS_SERVER_BIN, as scripts/runtime/redis.ts reads it), kept when there.
      const missing = { REDIS_SERVER_BIN: path.join(native, 'no-redis-server') };
      expect(apt(setupWith(missing, '--native', '--no-systemd', '--state', native).stdout)).toContain('redis-server');
      const there = { REDIS_SERVER_BIN: '/bin/sh' };
      expect(apt(setupWith(there, '--native', '--no-systemd', '--state', native).stdout)).not.toContain('redis-server');
    } finally {
      rmSync(native, { recursive: true, force: true });
    }
  });

  it('refuses a bad project name or base URL, naming the option', () => {
    const project = setup('--project', 'Bad Name');
    expect(project.status).toBe(2);
    expect(project.stderr).toMatch(/--project: lower-case letters/);
    const url = setup('--provider-base-url', 'ftp://x');
    expect(url.status).toBe(2);
    expect(url.stderr).toMatch(/--provider-base-url: an http\(s\) URL/);
  });
});
