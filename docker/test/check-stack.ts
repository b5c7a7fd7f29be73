// The install test's checks (scripts/test-docker.sh), against the compose stack setup.sh started: the one-shot
// services end with 0 and every other service is healthy; through Caddy at the public URL setup.sh wrote (the
// self-signed certificate for the server's IP, verified as the only trusted CA, with no SNI as Telegram connects) the
// judge and the assistant answer and refuse without a key; the Telegram entry is registered with the certificate
// uploaded (the Bot API fake on the host says so); after the first install the idle memory of every service is
// printed (docs/BENCHMARKS.md).
//   tsx docker/test/check-stack.ts <compose.env> <first|again> <compose project>
// "first" (a fresh install) expects the n8n API key created and the imported workflows switched on; "again" (a re-run
// of the install over it) expects the key reused, nothing switched on again, and what the assistant stored kept.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { parseEnv } from '../../scripts/installer/env-file';

const envFile = process.argv[2];
const run = process.argv[3];
const project = process.argv[4];
if (!envFile || !['first', 'again'].includes(run) || !project) {
  throw new Error('usage: check-stack.ts <compose.env> <first|again> <compose project>');
}
const settings = parseEnv(readFileSync(envFile, 'utf8'), envFile);
const publicUrl = settings.N8N_PUBLIC_URL;
const base = publicUrl.replace(/\/$/, '');
const certificate = readFileSync(path.join(settings.CADDY_CERTS_DIR, 'server.pem'));

function docker(args: string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8' });
}

function containers(): Array<{ service: string; id: string; state: string; health: string; exitCode: number }> {
  const ids = docker(['ps', '-aq', '--filter', `label=com.docker.compose.project=${project}`]).split('\n');
  return ids.filter(Boolean).map((id) => {
    const [info] = JSON.parse(docker(['inspect', id])) as Array<{
      Config: { Labels: Record<string, string> };
      State: { Status: string; ExitCode: number; Health?: { Status: string } };
    }>;
    return {
      service: info.Config.Labels['com.docker.compose.service'],
      id,
      state: info.State.Status,
      health: info.State.Health?.Status ?? 'none',
      exitCode: info.State.ExitCode,
    };
  });
}

const ONE_SHOT = new Set(['assistant-database', 'n8n-import', 'assistant-setup']);

async function waitForStack(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const all = containers();
    const failed = all.find((c) => ONE_SHOT.has(c.service) && c.state === 'exited' && c.exitCode !== 0);
    if (failed) throw new Error(`${failed.service} exited with ${failed.exitCode}`);
    const pending = all.filter((c) =>
      ONE_SHOT.has(c.service) ? c.state !== 'exited' : c.health !== 'healthy' && c.health !== 'none',
    );
    const setupDone = all.some((c) => c.service === 'assistant-setup' && c.state === 'exited');
    if (pending.length === 0 && setupDone) return;
    if (Date.now() > deadline) {
      throw new Error(`not ready in time: ${pending.map((c) => `${c.service} (${c.state}/${c.health})`).join(', ')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
}

/** HTTPS to Caddy by IP (no SNI), trusting only the installation's self-signed certificate. */
function request(
  pathname: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${base}${pathname}`,
      { method: init.method ?? 'GET', headers: init.headers, ca: certificate, timeout: 120_000 },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

function check(condition: boolean, what: string, detail = ''): void {
  if (!condition) throw new Error(`FAILED: ${what}${detail ? ` (${detail.slice(0, 400)})` : ''}`);
  console.log(`ok: ${what}`);
}

async function main(): Promise<void> {
  await waitForStack(15 * 60_000);
  check(true, 'the one-shot services ended with 0 and every service is healthy');
  const setup = containers().find((c) => c.service === 'assistant-setup')!;
  // The container's log holds every run of it: the last line is this run's.
  const setupLog = execFileSync('docker', ['logs', setup.id], { encoding: 'utf8' }).trim().split('\n').at(-1) ?? '';
  const switchedOn = Number(/workflows switched on: (\d+)/.exec(setupLog)?.[1] ?? -1);
  if (run === 'first') {
    check(/n8n API key: created/.test(setupLog), 'assistant-setup made the n8n API key', setupLog);
    check(switchedOn > 40, `assistant-setup switched on the imported workflows (${switchedOn})`, setupLog);
  } else {
    check(/n8n API key: reused/.test(setupLog), 'a re-run reuses the n8n API key', setupLog);
    check(switchedOn === 0, 'a re-run switches nothing on again (nothing was imported)', setupLog);
  }

  const judgeWithout = await request('/v1/models');
  // Jev's rules: no key is 403 permission_error, a wrong one 401.
  check(judgeWithout.status === 403, 'the judge refuses without a key, through Caddy', judgeWithout.body);
  const judge = await request('/v1/models', { headers: { authorization: `Bearer ${settings.JUDGE_API_KEY}` } });
  check(judge.status === 200, 'the judge answers with its key, through Caddy', judge.body);

  const marker = run === 'first' ? `docker-${Date.now()}` : 'again';
  const agent = (key?: string) =>
    request('/webhook/agent', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({ message: `hello ${marker}`, user_id: 'owner' }),
    });
  const refused = await agent();
  check(refused.status === 401, 'the assistant refuses without X-API-Key, through Caddy', refused.body);
  const answered = await agent(settings.ASSISTANT_API_KEY);
  check(
    answered.status === 200 && answered.body.includes(marker),
    'the assistant answers (the chat model fake echoes), through Caddy',
    `${answered.status} ${answered.body}`,
  );

  const webhook = (await (await fetch(`${settings.ASSISTANT_TELEGRAM_API_URL}/__webhook`)).json()) as {
    url: string;
    certificate?: string;
  } | null;
  check(
    webhook?.url.startsWith(`${publicUrl}webhook/`) === true,
    'the Telegram entry is registered at the public URL',
    JSON.stringify(webhook),
  );
  check(webhook?.certificate === certificate.toString('utf8'), 'its self-signed certificate was uploaded');

  if (run === 'again') {
    const turns = docker([
      'exec',
      containers().find((c) => c.service === 'postgres')!.id,
      'psql',
      '-h',
      '/var/run/postgresql',
      '-U',
      'n8n',
      '-d',
      'assistant',
      '-tAc',
      "SELECT count(*) FROM assistant.turns WHERE content LIKE 'hello docker-%'",
    ]);
    check(Number(turns.trim()) >= 1, "the first run's conversation is still in the database", turns);
  }

  if (run !== 'first') return;
  // Idle: a minute after the last request.
  await new Promise((resolve) => setTimeout(resolve, 60_000));
  console.log('\nidle memory (docker stats):');
  const stats = docker(['stats', '--no-stream', '--format', '{{.Name}}\t{{.MemUsage}}']);
  console.log(stats.trim());
}

main().catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
