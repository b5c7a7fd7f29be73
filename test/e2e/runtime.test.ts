// The runtime itself: the shared e2e stack (n8n 2.41.1 + Postgres 17) is up and has the project installed,
// and the pieces it is built from (Postgres, credential templates, workflow files) behave.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { execFileSync, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { loadCredentialTemplates, renderCredentialTemplate } from '../../scripts/runtime/credentials';
import { REPO_ROOT } from '../../scripts/runtime/n8n';
import { startPostgres } from '../../scripts/runtime/postgres';
import { isAlive } from '../../scripts/runtime/process';
import { NODES_PACKAGE_NAME, readWorkflowFiles, WORKFLOWS_DIR } from '../../scripts/runtime/stack';
import { e2eStack } from './setup/harness';
import { SLACK_ENTRY_WORKFLOW_ID } from '../../scripts/runtime/local-slack';

const rootPackage = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  n8n: { nodes: string[] };
};

describe('the e2e stack', () => {
  const stack = e2eStack();

  it('is ready (readiness, not just liveness)', async () => {
    const response = await fetch(`${stack.n8nUrl}/healthz/readiness`);
    expect(response.status).toBe(200);
  });

  it('accepts its API key on the public API and refuses a wrong one', async () => {
    const listed = await stack.api<{ data: Array<{ id: string }> }>('/workflows');
    expect(Array.isArray(listed.data)).toBe(true);
    const wrong = await fetch(`${stack.n8nUrl}/api/v1/workflows`, { headers: { 'X-N8N-API-KEY': 'not-a-key' } });
    expect(wrong.status).toBe(401);
  });

  it('runs n8n on Postgres, not SQLite', async () => {
    const client = new Client({ connectionString: stack.postgresUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ email: string }>('SELECT email FROM "user" WHERE email = $1', [
        stack.owner.email,
      ]);
      expect(rows).toEqual([{ email: stack.owner.email }]);
    } finally {
      await client.end();
    }
  });

  it('loads the project nodes package as an installed package', async () => {
    // The built node classes say their own names; n8n must list each under the package's name.
    const expected = rootPackage.n8n.nodes.map((file) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const exported = require(path.join(REPO_ROOT, file)) as Record<
        string,
        new () => { description: { name: string } }
      >;
      const NodeClass = Object.values(exported).find((value) => typeof value === 'function');
      if (!NodeClass) throw new Error(`${file}: exports no node class`);
      return `${NODES_PACKAGE_NAME}.${new NodeClass().description.name}`;
    });
    expect(expected.length).toBeGreaterThan(0);
    const types = await stack.editor<Array<{ name: string }>>('/types/nodes.json');
    const names = types.map((t) => t.name);
    for (const type of expected) expect(names).toContain(type);
    expect(names).toContain(`${NODES_PACKAGE_NAME}.judge`);
  });

  it('imported every workflow of workflows/ under its fixed id, and activated those with a trigger', async () => {
    const files = readWorkflowFiles([WORKFLOWS_DIR]);
    for (const file of files) {
      const workflow = await stack.api<{ id: string; name: string; active: boolean }>(`/workflows/${file.id}`);
      expect(workflow.name).toBe(file.name);
      // The Slack entry is switched on only with the Slack app's tokens (its own e2e does, and switches it off).
      expect(workflow.active).toBe(file.triggered && file.id !== SLACK_ENTRY_WORKFLOW_ID);
    }
  });

  it('recorded the PIDs of n8n and Postgres, all running', async () => {
    expect(stack.pids.length).toBeGreaterThanOrEqual(2);
    // n8n as it runs now (a test may have restarted it since start-up, with a new PID), and Postgres as recorded at
    // start-up (the last PID of the list).
    const now = await stack.currentPids();
    expect(now.all).toContain(now.n8n);
    expect(isAlive(now.n8n)).toBe(true);
    expect(isAlive(stack.pids[stack.pids.length - 1])).toBe(true);
  });
});

describe('startPostgres', () => {
  it('starts Postgres 17 on 127.0.0.1 with the database, and stop() leaves no process or folder', async () => {
    const pg = await startPostgres({ database: 'runtime_check' });
    try {
      expect(pg.url).toBe(`postgres://postgres@127.0.0.1:${pg.port}/runtime_check`);
      const client = new Client({ connectionString: pg.url });
      await client.connect();
      const { rows } = await client.query<{ version: string; db: string }>(
        "SELECT current_setting('server_version') AS version, current_database() AS db",
      );
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      await client.end();
      expect(rows[0].version).toMatch(/^17\./);
      expect(rows[0].db).toBe('runtime_check');
    } finally {
      await pg.stop();
    }
    expect(isAlive(pg.pid)).toBe(false);
    expect(existsSync(pg.dataDir)).toBe(false);
  });

  it('keeps a given data folder, with password auth, and reuses it on the next start', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pg-kept-'));
    chmodSync(dir, 0o711); // as root, Postgres runs as the postgres user, who must be able to enter it
    const dataDir = path.join(dir, 'data');
    try {
      const first = await startPostgres({ dataDir, password: 's3cret pass' });
      const client = new Client({ connectionString: first.url });
      await client.connect();
      await client.query('CREATE TABLE kept (value text)');
      await client.query('INSERT INTO kept VALUES ($1)', ['survives a restart']);
      await client.end();
      await first.stop();

      const second = await startPostgres({ dataDir, password: 's3cret pass' });
      try {
        const again = new Client({ connectionString: second.url });
        await again.connect();
        const { rows } = await again.query('SELECT value FROM kept');
        await again.end();
        expect(rows).toEqual([{ value: 'survives a restart' }]);
        const wrongPassword = new Client({ connectionString: second.url.replace('s3cret%20pass', 'wrong') });
        await expect(wrongPassword.connect()).rejects.toThrow(/password authentication failed/);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(process.getuid?.() === 0)(
    'as root, names dataDir when the postgres user cannot enter its folder',
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'pg-closed-'));
      try {
        await expect(startPostgres({ dataDir: path.join(dir, 'data') })).rejects.toThrow(/^dataDir: .*cannot enter/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it('rejects a bad database name, naming the field', async () => {
    await expect(startPostgres({ database: 'x; DROP' })).rejects.toThrow(/^database: /);
  });
});

describe('credential templates', () => {
  it('fills required and optional placeholders from the environment', () => {
    const credential = renderCredentialTemplate(
      {
        id: 'cred000000000001',
        name: 'Example',
        type: 'httpHeaderAuth',
        data: {
          name: 'Authorization',
          value: 'Bearer ${TOKEN}',
          url: '${BASE_URL:-http://127.0.0.1:1}',
          extra: '${NOPE:-}',
        },
      },
      { TOKEN: 'abc' },
      'example.json',
    );
    expect(credential.data).toEqual({
      name: 'Authorization',
      value: 'Bearer abc',
      url: 'http://127.0.0.1:1',
      extra: '',
    });
  });

  it('names the file and the variable when a required one is missing', () => {
    expect(() =>
      renderCredentialTemplate({ id: 'a', name: 'b', type: 'c', data: { key: '${MISSING_KEY}' } }, {}, 'x.json'),
    ).toThrow(/x\.json: environment variable MISSING_KEY is not set/);
  });

  it('names the field of a malformed template', () => {
    expect(() => renderCredentialTemplate({ id: 'a', name: 'b', data: {} }, {}, 'y.json')).toThrow(
      /y\.json: field "type"/,
    );
  });

  it('rejects two templates with one id', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'creds-'));
    try {
      const template = { id: 'same', name: 'n', type: 't', data: {} };
      writeFileSync(path.join(dir, 'a.json'), JSON.stringify(template));
      writeFileSync(path.join(dir, 'b.json'), JSON.stringify(template));
      expect(() => loadCredentialTemplates([dir], {})).toThrow(/b\.json: credential id "same" is also used by/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('workflow files', () => {
  it('requires a fixed 16-character id', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wf-'));
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'w.json'), JSON.stringify({ id: 'short', name: 'w', nodes: [] }));
      expect(() => readWorkflowFiles([dir])).toThrow(/w\.json: field "id"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('setup.sh', () => {
  it('parses, and its dry run lists the Docker install steps (the default) without changing anything', () => {
    const script = path.join(REPO_ROOT, 'setup.sh');
    execFileSync('bash', ['-n', script]);
    const output = execFileSync('bash', [
      script,
      '--dry-run',
      '--queue',
      '--prefix',
      '/opt/x',
      '--state',
      '/var/lib/x',
    ]).toString();
    // One settings file: the answers, the HTTPS step's and the generated secrets.
    expect(output).toContain('/opt/x/scripts/installer/main.ts --env /var/lib/x/compose.env --containers');
    expect(output).toContain(
      '/opt/x/scripts/installer/https.ts --compose --env /var/lib/x/compose.env --caddy-dir /var/lib/x/caddy',
    );
    expect(output).toContain(
      '/opt/x/scripts/installer/compose-env.ts --env /var/lib/x/compose.env --out /var/lib/x/compose.env --caddy-dir /var/lib/x/caddy --queue',
    );
    expect(output).not.toContain('local.env');
    expect(output).toMatch(
      /\+ docker[- ]compose -p judge-assistant --env-file \/var\/lib\/x\/compose\.env -f \/opt\/x\/docker-compose\.yml up -d --build/,
    );
    // No n8n build on the host, no systemd unit of ours.
    expect(output).not.toContain('scripts/install.sh');
    expect(output).not.toContain('judge-assistant.service');
    expect(existsSync('/opt/x')).toBe(false);
    const uninstall = execFileSync('bash', [
      script,
      '--dry-run',
      '--uninstall',
      '--purge',
      '--state',
      '/var/lib/x',
    ]).toString();
    expect(uninstall).toContain('+ rm -rf /var/lib/x');
    const both = spawnSync('bash', [script, '--dry-run', '--native', '--queue']);
    expect(both.status).toBe(2);
    expect(both.stderr.toString()).toMatch(/--queue is for the Docker path/);
  });

  it('with --native, its dry run lists the systemd install steps', () => {
    const script = path.join(REPO_ROOT, 'setup.sh');
    const output = execFileSync('bash', [
      script,
      '--dry-run',
      '--native',
      '--prefix',
      '/opt/x',
      '--state',
      '/var/lib/x',
    ]).toString();
    expect(output).toContain('+ useradd --system --home-dir /var/lib/x');
    expect(output).toContain('bash /opt/x/scripts/install.sh');
    // The questions run once the code is installed, answers into the state's local.env.
    expect(output).toContain('/opt/x/scripts/installer/main.ts --env /var/lib/x/local.env');
    expect(output).toContain('/opt/x/scripts/installer/https.ts --env /var/lib/x/local.env --caddy-dir /etc/caddy');
    expect(output).toContain('ExecStart=/opt/x/node_modules/.bin/tsx /opt/x/scripts/runtime/local.ts');
    expect(output).toContain('Environment=LOCAL_STATE_DIR=/var/lib/x');
    expect(output).toContain('+ systemctl enable --now judge-assistant.service');
    expect(existsSync('/opt/x')).toBe(false);
  });

  it('uninstalls the service and the code, keeping the data unless --purge', () => {
    const script = path.join(REPO_ROOT, 'setup.sh');
    const keep = execFileSync('bash', [
      script,
      '--dry-run',
      '--native',
      '--uninstall',
      '--prefix',
      '/opt/x',
      '--state',
      '/var/lib/x',
    ]).toString();
    expect(keep).toContain('+ systemctl disable --now judge-assistant.service');
    expect(keep).toContain('+ rm -rf /opt/x');
    expect(keep).not.toContain('+ rm -rf /var/lib/x');
    expect(keep).toContain('Kept: the data and secrets in /var/lib/x');
    const purge = execFileSync('bash', [
      script,
      '--dry-run',
      '--native',
      '--uninstall',
      '--purge',
      '--prefix',
      '/opt/x',
      '--state',
      '/var/lib/x',
    ]).toString();
    expect(purge).toContain('+ rm -rf /var/lib/x');
    const alone = spawnSync('bash', [script, '--dry-run', '--purge']);
    expect(alone.status).toBe(2);
    expect(alone.stderr.toString()).toMatch(/--purge goes with --uninstall/);
  });

  it('names a bad option', () => {
    const result = spawnSync('bash', [path.join(REPO_ROOT, 'setup.sh'), '--dry-run', '--user', 'Bad User']);
    expect(result.status).toBe(2);
    expect(result.stderr.toString()).toMatch(/--user: /);
    const answers = spawnSync('bash', [path.join(REPO_ROOT, 'setup.sh'), '--dry-run', '--answers', '/nonexistent']);
    expect(answers.status).toBe(2);
    expect(answers.stderr.toString()).toMatch(/--answers: cannot read \/nonexistent/);
  });
});
