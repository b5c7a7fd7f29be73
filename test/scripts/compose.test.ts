// docker-compose.yml's structure and its consistency with the runtime — pinned images, the performance settings,
// secrets only from the settings file, mounts that exist — and Debian's docker-compose reading it. The stack itself
// runs on dockerd in scripts/test-docker.sh (not part of npm test: see docs/RUNTIME.md).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { INSTANCE_CAP_SETTINGS } from '../../assistant/src/budget/instance-caps';
import { JOB_CAPS_SETTING } from '../../assistant/src/budget/job-caps';
import { SETTINGS_FROM_ENV } from '../../assistant/src/setup/prepare-database';
import { readDoctorSettings } from '../../scripts/doctor/settings';
import { N8N_VERSION, REPO_ROOT } from '../../scripts/runtime/n8n';
import { baseN8nEnv } from '../../scripts/runtime/stack';

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  mem_limit?: string;
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  command?: string[];
  entrypoint?: string[];
  healthcheck?: { test: string[] };
  extra_hosts?: string[];
}

const text = readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
const compose = load(text) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { services } = compose;

const ONE_SHOT = ['assistant-database', 'n8n-import', 'assistant-setup', 'doctor'];
const APP_SERVICES = ['judge', 'gateway', 'browser', 'assistant-database', 'assistant-setup', 'doctor'];

/** The model providers' settings (assistant/src/gateway/config.ts): only the gateway has them. */
const PROVIDER_SETTING =
  /^(ASSISTANT_(LLM|EMBEDDINGS|TRANSCRIPTION)_(BASE_URL|API_KEY)|JUDGE_OPENAI_(BASE_URL|API_KEY))$/;

describe('docker-compose.yml', () => {
  it('has Postgres 17, the judge, the model gateway, SearXNG, the browser service, n8n, Caddy, the one-shot steps, and queue mode', () => {
    expect(Object.keys(services).sort()).toEqual(
      [
        'assistant-database',
        'assistant-setup',
        'browser',
        'caddy',
        'doctor',
        'gateway',
        'judge',
        'n8n',
        'n8n-import',
        'n8n-worker',
        'postgres',
        'redis',
        'searxng',
      ].sort(),
    );
    // Postgres 17 with pgvector (issue 34), pinned by version.
    expect(services.postgres.image).toMatch(/^pgvector\/pgvector:0\.8\.\d+-pg17$/);
    expect(services.n8n.image).toBe(`docker.n8n.io/n8nio/n8n:${N8N_VERSION}`);
    expect(services['n8n-import'].image).toBe(services.n8n.image);
    expect(services['n8n-worker'].image).toBe(services.n8n.image);
    expect(services.caddy.image).toMatch(/^docker\.io\/library\/caddy:\d+\.\d+\.\d+-alpine$/);
    expect(services.redis.image).toMatch(/^docker\.io\/library\/redis:7\.\d+\.\d+-bookworm$/);
    expect(services.redis.profiles).toEqual(['queue']);
    expect(services['n8n-worker'].profiles).toEqual(['queue']);
  });

  it('is read by docker-compose with the settings it requires, with and without queue mode', () => {
    const required = [...new Set([...text.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((match) => match[1]))];
    const env = Object.fromEntries(required.map((name) => [name, `test-${name.toLowerCase()}`]));
    const run = (extra: Record<string, string>) =>
      execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '--services'], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env, ...extra },
      });
    // Debian's docker-compose 1.29 lists the queue profile's services too.
    expect(run({}).trim().split('\n').sort()).toEqual(Object.keys(services).sort());
    expect(run({ COMPOSE_PROFILES: 'queue' }).trim().split('\n')).toContain('n8n-worker');
    const missing = (() => {
      try {
        execFileSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '-q'], {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        return '';
      } catch (error) {
        return String((error as { stderr?: Buffer }).stderr);
      }
    })();
    expect(missing).toMatch(/set [A-Z_]+ in \.env/);
  });

  it('keeps every long-running service up and healthy, the default stack within a 4 GB host', () => {
    const megabytes = (limit: string) => {
      const match = /^(\d+)([mg])$/.exec(limit);
      if (!match) throw new Error(`mem_limit "${limit}" is not like 512m or 1g`);
      return Number(match[1]) * (match[2] === 'g' ? 1024 : 1);
    };
    const longRunning = Object.entries(services).filter(([name]) => !ONE_SHOT.includes(name));
    for (const [name, service] of longRunning) {
      expect([name, service.restart]).toEqual([name, 'unless-stopped']);
      expect(service.healthcheck?.test, name).toBeDefined();
      expect(service.mem_limit, name).toBeDefined();
    }
    const total = (entries: typeof longRunning) =>
      entries.reduce((sum, [, service]) => sum + megabytes(service.mem_limit!), 0);
    // The seed's host has 4 GB; the OS and Docker keep at least half a gigabyte.
    expect(total(longRunning.filter(([, service]) => !service.profiles))).toBeLessThanOrEqual(3584);
    // Queue mode adds Redis and a worker: documented as for a host of 6 GB or more.
    expect(total(longRunning)).toBeLessThanOrEqual(5120);
    for (const name of ONE_SHOT) {
      expect(services[name].mem_limit, name).toBeDefined();
      expect(services[name].restart, name).toBeUndefined();
    }
    expect(services.n8n.depends_on?.judge).toEqual({ condition: 'service_healthy' });
  });

  it('gives n8n the same performance and no-phone-home settings as the test runtime', () => {
    const env = services.n8n.environment!;
    const runtime = baseN8nEnv();
    for (const key of [
      'NODE_ENV',
      'N8N_PAYLOAD_SIZE_MAX',
      'N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE',
      'DB_POSTGRESDB_POOL_SIZE',
      'N8N_DIAGNOSTICS_ENABLED',
      'N8N_VERSION_NOTIFICATIONS_ENABLED',
      'N8N_PERSONALIZATION_ENABLED',
      'N8N_TEMPLATES_ENABLED',
    ]) {
      expect(env[key], key).toBe(runtime[key]);
    }
    // The same webhook guard: the runtime's file, mounted into the container.
    expect(path.basename(runtime.EXTERNAL_HOOK_FILES)).toBe('webhook-guard.js');
    expect(env.EXTERNAL_HOOK_FILES).toBe('/opt/project/runtime/webhook-guard.js');
    expect(services.n8n.volumes).toContain('./scripts/runtime:/opt/project/runtime:ro');
    expect(existsSync(runtime.EXTERNAL_HOOK_FILES)).toBe(true);
    expect(env.DB_TYPE).toBe('postgresdb');
    expect(services['n8n-import'].environment).toMatchObject(env);
    expect(services['n8n-worker'].environment).toMatchObject(env);
  });

  it('takes every secret from .env, required, never a literal', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        // A database URL names no password (it is apart, in PGPASSWORD); JUDGE_KEYS_DATABASE_URL is one.
        if (/_DATABASE_URL$/.test(key)) expect(String(value), `${name}.${key}`).not.toMatch(/\/\/[^@/]*:[^@/]*@/);
        else if (/PASSWORD|KEY|SECRET|TOKEN/.test(key) && !/^N8N_.*_ENABLED$/.test(key)) {
          // Required (:?), or empty / a local runner's placeholder key when not given.
          expect(String(value), `${name}.${key}`).toMatch(/^\$\{[A-Z0-9_]+(:\?[^}]+|:-|:-ollama)\}$/);
        }
      }
    }
    expect(services.n8n.environment!.N8N_ENCRYPTION_KEY).toMatch(/^\$\{N8N_ENCRYPTION_KEY:\?/);
    expect(services.postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    // The credentials' secrets reach n8n only at import (it encrypts them); the running n8n never has them.
    for (const key of ['ASSISTANT_API_KEY', 'SYSTEMONE_JUDGE_KEY', 'ASSISTANT_MCP_TOKEN', 'ASSISTANT_GATEWAY_KEY']) {
      expect(services['n8n-import'].environment, key).toHaveProperty(key);
      expect(services.n8n.environment, key).not.toHaveProperty(key);
      expect(services['n8n-worker'].environment, key).not.toHaveProperty(key);
    }
  });

  it('runs the model gateway with every setting it reads, the ledger in the assistant database, healthy before its callers', () => {
    const gateway = services.gateway;
    const env = gateway.environment!;
    expect(gateway.command).toEqual(['node', 'assistant/dist/gateway/main.js']);
    const config = readFileSync(path.join(REPO_ROOT, 'assistant', 'src', 'gateway', 'config.ts'), 'utf8');
    const read = new Set([...config.matchAll(/'((?:ASSISTANT|JUDGE)_[A-Z_]+)'/g)].map((match) => match[1]));
    // The test clock is for the e2e stack only (honoured only with NODE_ENV=test): never in an install.
    read.delete('ASSISTANT_GATEWAY_TEST_CLOCK_FILE');
    expect(env).not.toHaveProperty('ASSISTANT_GATEWAY_TEST_CLOCK_FILE');
    expect(env).not.toHaveProperty('NODE_ENV');
    expect(read.size).toBeGreaterThan(15);
    for (const name of read) expect(env, name).toHaveProperty(name);
    // Each provider setting and limit from the settings file, as the operator gave it.
    for (const name of [...read].filter((name) => !name.startsWith('ASSISTANT_GATEWAY_'))) {
      expect(String(env[name]), name).toMatch(new RegExp(`^\\$\\{${name}:-[^}]*\\}$`));
    }
    expect(env).toMatchObject({ ASSISTANT_GATEWAY_HOST: '0.0.0.0', ASSISTANT_GATEWAY_PORT: '5681' });
    expect(env.ASSISTANT_GATEWAY_KEY).toMatch(/^\$\{ASSISTANT_GATEWAY_KEY:\?/);
    // The ledger: the assistant's database, as assistant-database reaches it.
    const database = services['assistant-database'].environment!;
    const ledger = new URL(env.ASSISTANT_GATEWAY_DATABASE_URL);
    expect([ledger.hostname, ledger.port, ledger.pathname, ledger.username, ledger.password]).toEqual([
      database.ASSISTANT_PG_HOST,
      database.ASSISTANT_PG_PORT,
      `/${database.ASSISTANT_PG_DATABASE}`,
      database.ASSISTANT_PG_USER,
      '',
    ]);
    expect(env.PGPASSWORD).toBe(database.ASSISTANT_PG_PASSWORD);
    expect(gateway.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      'assistant-database': { condition: 'service_completed_successfully' },
    });
    expect(gateway.healthcheck!.test.join(' ')).toContain('http://127.0.0.1:5681/healthz');
    expect(gateway.ports).toBeUndefined();
    for (const name of ['n8n', 'judge']) {
      expect(services[name].depends_on, name).toMatchObject({ gateway: { condition: 'service_healthy' } });
    }
  });

  it("gives the console's web chat the assistant's webhook inside the stack and its key, never published", () => {
    expect(services.judge.environment).toMatchObject({
      JUDGE_CONSOLE_ASSISTANT_URL: 'http://n8n:5678/webhook',
      JUDGE_CONSOLE_ASSISTANT_KEY: services['n8n-import'].environment!.ASSISTANT_API_KEY,
      JUDGE_CONSOLE_ASSISTANT_VOICE: '${JUDGE_CONSOLE_ASSISTANT_VOICE:-off}',
    });
    expect(services.n8n.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:5678/');
    expect(services.judge.ports).toBeUndefined();
  });

  it("keeps the providers' settings in the gateway: n8n and the judge reach their models through it, with its key", () => {
    const gateway = services.gateway.environment!;
    const providerReference = new RegExp(`\\$\\{(${PROVIDER_SETTING.source.slice(1, -1)})[:}]`);
    for (const [name, service] of Object.entries(services)) {
      if (name === 'gateway') continue;
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        expect(String(value), `${name}.${key}`).not.toMatch(providerReference);
        if (name !== 'judge') expect(key, `${name}.${key}`).not.toMatch(PROVIDER_SETTING);
      }
    }
    expect(services.judge.environment).toMatchObject({
      JUDGE_OPENAI_BASE_URL: 'http://gateway:5681/judge/v1',
      JUDGE_OPENAI_API_KEY: gateway.ASSISTANT_GATEWAY_KEY,
      JUDGE_OPENAI_MODEL: '${JUDGE_OPENAI_MODEL:-qwen2.5:7b-instruct}#job=judge',
    });
    expect(services['n8n-import'].environment).toMatchObject({
      ASSISTANT_GATEWAY_URL: 'http://gateway:5681',
      ASSISTANT_GATEWAY_KEY: gateway.ASSISTANT_GATEWAY_KEY,
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: '${ASSISTANT_TRANSCRIPTION_GATEWAY_URL:-}',
    });
    // Every setting the credential templates read is given at import.
    const templates = path.join(REPO_ROOT, 'scripts', 'runtime', 'credentials');
    for (const file of readdirSync(templates)) {
      for (const [, name] of readFileSync(path.join(templates, file), 'utf8').matchAll(/\$\{([A-Z0-9_]+)/g)) {
        expect(services['n8n-import'].environment, `${file}: ${name}`).toHaveProperty(name);
      }
    }
    // Only the gateway reaches the host (a model server there, e.g. Ollama).
    for (const [name, service] of Object.entries(services)) {
      expect(service.extra_hosts, name).toEqual(name === 'gateway' ? ['host.docker.internal:host-gateway'] : undefined);
    }
  });

  it('mounts folders that exist in the repository, and the nodes package where n8n loads packages', () => {
    for (const name of ['n8n', 'n8n-import', 'n8n-worker']) {
      for (const volume of services[name].volumes!) {
        const [source] = volume.split(':');
        if (source.startsWith('./')) expect(existsSync(path.join(REPO_ROOT, source)), source).toBe(true);
        else expect(compose.volumes, source).toHaveProperty(source);
      }
    }
    // The app image's nodes package (assistant-database copies it there) is where n8n loads installed packages.
    expect(services.n8n.volumes).toContain('nodes_package:/home/node/.n8n/nodes');
    expect(services['assistant-database'].volumes).toEqual(['nodes_package:/nodes', 'assistant_state:/state']);
    expect(services['assistant-database'].command!.join(' ')).toContain(
      'cp -r package.json dist /nodes/node_modules/n8n-nodes-judge-assistant/',
    );
  });

  it("gives the database step every setting it stores, the instance's and the jobs' spending caps among them", () => {
    const env = services['assistant-database'].environment!;
    const caps = [
      ...Object.values(INSTANCE_CAP_SETTINGS).flatMap((names) => [names.usd, names.tokens]),
      JOB_CAPS_SETTING,
    ];
    for (const name of [
      ...SETTINGS_FROM_ENV.map(([setting]) => setting),
      ...caps,
      'ASSISTANT_OWNER_USER_ID',
      'ASSISTANT_DM_POLICY_TELEGRAM',
      'ASSISTANT_DM_ALLOW_TELEGRAM',
    ]) {
      expect(env[name], name).toBe(`\${${name}:-}`);
    }
  });

  it('starts n8n only after Postgres is healthy and the import succeeded; publishes only n8n, on loopback', () => {
    expect(services.n8n.depends_on).toMatchObject({
      postgres: { condition: 'service_healthy' },
      'n8n-import': { condition: 'service_completed_successfully' },
    });
    expect(services['n8n-import'].depends_on).toMatchObject({
      'assistant-database': { condition: 'service_completed_successfully' },
    });
    expect(services['assistant-setup'].depends_on).toEqual({ n8n: { condition: 'service_healthy' } });
    expect(services.n8n.ports).toEqual(['127.0.0.1:${N8N_PORT:-5678}:5678']);
    expect(services.caddy.ports).toEqual(['${HTTP_PORT:-80}:80', '${HTTPS_PORT:-443}:443']);
    for (const name of Object.keys(services).filter((name) => !['n8n', 'caddy'].includes(name))) {
      expect(services[name].ports, name).toBeUndefined();
    }
    expect(services.n8n.healthcheck!.test.join(' ')).toContain('/healthz/readiness');
  });

  it('imports through the runtime scripts that exist, and runs the judge CLI the package builds', () => {
    const script = services['n8n-import'].command!.join(' ');
    expect(script).toContain('/opt/project/runtime/import-into-n8n.js');
    // What it loads must be plain CommonJS in the mounted runtime folder (the n8n image has bare node).
    const source = readFileSync(path.join(REPO_ROOT, 'scripts', 'runtime', 'import-into-n8n.js'), 'utf8');
    for (const [, file] of source.matchAll(/require\('\.\/([\w-]+)'\)/g)) {
      expect(existsSync(path.join(REPO_ROOT, 'scripts', 'runtime', `${file}.js`)), file).toBe(true);
    }
    // One image of the project for the judge, the browser service and the setup steps.
    for (const name of APP_SERVICES) {
      expect(services[name].image, name).toBe('judge-assistant/app:local');
      expect(services[name].build, name).toEqual({ context: '.', dockerfile: 'docker/app.Dockerfile' });
    }
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'docker', 'app.Dockerfile'), 'utf8');
    expect(dockerfile).toContain('judge/dist/cli/main.js');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24\.\d+\.\d+-bookworm-slim$/m);
    for (const source of [
      'assistant/src/setup/main.ts',
      'assistant/src/browser/main.ts',
      'assistant/src/gateway/main.ts',
    ]) {
      expect(existsSync(path.join(REPO_ROOT, source)), source).toBe(true);
    }
    const judgePackage = JSON.parse(readFileSync(path.join(REPO_ROOT, 'judge', 'package.json'), 'utf8'));
    expect(judgePackage.bin['systemone-judge']).toBe('dist/cli/main.js');
  });

  it('gives n8n the web tools: SearXNG (pinned, JSON on) and the browser service with its key, both healthy first', () => {
    const searxng = services.searxng;
    expect(searxng.image).toMatch(/^docker\.io\/searxng\/searxng:\d{4}\.\d+\.\d+-[0-9a-f]{7,}$/);
    expect(searxng.volumes).toContain('./scripts/runtime/searxng/settings.yml:/etc/searxng/settings.yml:ro');
    const settings = load(readFileSync(path.join(REPO_ROOT, 'scripts', 'runtime', 'searxng', 'settings.yml'), 'utf8'));
    expect(settings).toMatchObject({ search: { formats: ['html', 'json'] }, server: { limiter: false } });
    const browser = services.browser;
    expect(readFileSync(path.join(REPO_ROOT, 'docker', 'app.Dockerfile'), 'utf8')).toContain('chromium');
    expect(browser.command).toEqual(['node', 'assistant/dist/browser/main.js']);
    expect(browser.environment).toMatchObject({
      ASSISTANT_BROWSER_HOST: '0.0.0.0',
      ASSISTANT_BROWSER_PROFILES_DIR: '/data/profiles',
      N8N_HOST: 'n8n',
    });
    expect(browser.volumes).toEqual(['browser_profiles:/data/profiles']);
    for (const name of ['searxng', 'browser']) {
      expect(services[name].healthcheck, name).toBeDefined();
      expect(services[name].mem_limit, name).toMatch(/^\d+[mg]$/);
    }
    const env = services.n8n.environment!;
    expect(env).toMatchObject({
      ASSISTANT_SEARCH_BACKEND: 'searxng',
      ASSISTANT_SEARXNG_URL: 'http://searxng:8080',
      ASSISTANT_BROWSER_URL: 'http://browser:8790',
    });
    expect(env.ASSISTANT_BROWSER_KEY).toBe(browser.environment!.ASSISTANT_BROWSER_KEY);
    expect(services.n8n.depends_on).toMatchObject({
      searxng: { condition: 'service_healthy' },
      browser: { condition: 'service_healthy' },
    });
  });

  it("runs doctor in the stack on demand: the image's bundle, the gateway and the judge as n8n reaches them", () => {
    const doctor = services.doctor;
    expect(doctor.profiles).toEqual(['doctor']);
    expect(doctor.entrypoint).toEqual(['node', 'scripts/doctor.bundle.js']);
    // Its arguments are doctor's: none is the full report.
    expect(doctor.command).toBeUndefined();
    expect(doctor.depends_on).toEqual({
      gateway: { condition: 'service_healthy' },
      judge: { condition: 'service_healthy' },
    });
    // The image has no tsx: the bundle is built with the project, before the dev packages (esbuild) are pruned.
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'docker', 'app.Dockerfile'), 'utf8');
    const bundle = dockerfile.indexOf('esbuild scripts/doctor.ts --bundle');
    expect(bundle).toBeGreaterThan(dockerfile.indexOf('npm run build'));
    expect(bundle).toBeLessThan(dockerfile.indexOf('npm prune --omit=dev'));
    expect(dockerfile).toContain('--define:require.main=undefined --outfile=scripts/doctor.bundle.js');
    // The image has no test/ (.dockerignore): a script's test-only import must stay out of the bundle (the install
    // test's image build failed on prompt-prefix.ts's Ollama fake).
    expect(dockerfile).toContain('--external:../test/*');
    expect(readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n')).toContain('test');
    const env = doctor.environment!;
    const gatewayKey = services.gateway.environment!.ASSISTANT_GATEWAY_KEY;
    const n8nImport = services['n8n-import'].environment!;
    // The assistant's database as the gateway reaches it (its ledger), for the recall path.
    expect(env.ASSISTANT_DATABASE_URL).toBe(services.gateway.environment!.ASSISTANT_GATEWAY_DATABASE_URL);
    expect(env.PGPASSWORD).toBe(services.gateway.environment!.PGPASSWORD);
    expect(env).toMatchObject({
      ASSISTANT_GATEWAY_URL: n8nImport.ASSISTANT_GATEWAY_URL,
      ASSISTANT_GATEWAY_KEY: gatewayKey,
      SYSTEMONE_JUDGE_URL: n8nImport.SYSTEMONE_JUDGE_URL,
      SYSTEMONE_JUDGE_KEY: n8nImport.SYSTEMONE_JUDGE_KEY,
      ASSISTANT_EMBEDDINGS_GATEWAY_URL: n8nImport.ASSISTANT_EMBEDDINGS_GATEWAY_URL,
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: n8nImport.ASSISTANT_TRANSCRIPTION_GATEWAY_URL,
    });
    // doctor reads these settings as compose gives them (defaults taken, required ones set), no local.env there.
    const interpolate = (extra: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(env).map(([name, value]) => [
          name,
          String(value).replace(
            /\$\{([A-Z0-9_]+)(?::-([^}]*)|:\?[^}]*)\}/g,
            (_all, variable: string, fallback) => extra[variable] ?? fallback ?? `test-${variable.toLowerCase()}`,
          ),
        ]),
      );
    const read = (extra: Record<string, string>) =>
      readDoctorSettings({ LOCAL_STATE_DIR: '/nonexistent', ...interpolate(extra) });
    const off = read({ ASSISTANT_LLM_MODEL: 'gpt-4o-mini' });
    expect(off).toMatchObject({
      gatewayUrl: 'http://gateway:5681',
      judge: { url: 'http://judge:8787', key: 'test-judge_api_key' },
      chatModel: 'gpt-4o-mini',
      embeddingsModel: null,
      transcriptionModel: null,
      database: { url: 'postgres://n8n@postgres:5432/assistant', password: 'test-postgres_password' },
    });
    const on = read({
      ASSISTANT_LLM_MODEL: 'gpt-4o-mini',
      ASSISTANT_EMBEDDINGS_GATEWAY_URL: 'http://gateway:5681/embeddings/v1',
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: 'http://gateway:5681/transcription/v1',
    });
    expect(on).toMatchObject({ embeddingsModel: 'text-embedding-3-small', transcriptionModel: 'whisper-1' });
  });
});
