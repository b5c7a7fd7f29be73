// docker-compose.yml cannot be run here (no Docker engine): check its structure and its consistency with the
// runtime instead — pinned images, the performance settings, secrets only from .env, mounts that exist.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { N8N_VERSION, REPO_ROOT } from '../../scripts/runtime/n8n';
import { baseN8nEnv } from '../../scripts/runtime/stack';

interface Service {
  image?: string;
  build?: { context: string; dockerfile_inline?: string };
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  mem_limit?: string;
  restart?: string;
  depends_on?: Record<string, { condition: string }>;
  command?: string[];
  healthcheck?: { test: string[] };
}

const text = readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
const compose = load(text) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const { services } = compose;

describe('docker-compose.yml', () => {
  it('has Postgres 17, the judge, SearXNG, the browser service, a one-shot import and n8n', () => {
    expect(Object.keys(services).sort()).toEqual(['browser', 'judge', 'n8n', 'n8n-import', 'postgres', 'searxng']);
    expect(services.postgres.image).toMatch(/^postgres:17\.\d+-bookworm$/);
    expect(services.n8n.image).toBe(`docker.n8n.io/n8nio/n8n:${N8N_VERSION}`);
    expect(services['n8n-import'].image).toBe(services.n8n.image);
  });

  it('keeps every long-running service up and healthy, within a 4 GB host', () => {
    const megabytes = (limit: string) => {
      const match = /^(\d+)([mg])$/.exec(limit);
      if (!match) throw new Error(`mem_limit "${limit}" is not like 512m or 1g`);
      return Number(match[1]) * (match[2] === 'g' ? 1024 : 1);
    };
    const longRunning = Object.entries(services).filter(([name]) => name !== 'n8n-import');
    for (const [name, service] of longRunning) {
      expect([name, service.restart]).toEqual([name, 'unless-stopped']);
      expect(service.healthcheck?.test, name).toBeDefined();
      expect(service.mem_limit, name).toBeDefined();
    }
    const total = longRunning.reduce((sum, [, service]) => sum + megabytes(service.mem_limit!), 0);
    // The seed's host has 4 GB; the OS and Docker keep at least half a gigabyte.
    expect(total).toBeLessThanOrEqual(3584);
    expect(services['n8n-import'].mem_limit).toBeDefined();
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
    expect(services['n8n-import'].environment).toEqual(env);
  });

  it('takes every secret from .env, required, never a literal', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (/PASSWORD|KEY|SECRET|TOKEN/.test(key) && !/^N8N_.*_ENABLED$/.test(key)) {
          expect(String(value), `${name}.${key}`).toMatch(/^\$\{[A-Z0-9_]+(:\?[^}]+|:-)\}$/);
        }
      }
    }
    expect(services.n8n.environment!.N8N_ENCRYPTION_KEY).toMatch(/^\$\{N8N_ENCRYPTION_KEY:\?/);
    expect(services.postgres.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
  });

  it('mounts folders that exist in the repository, and the nodes package where n8n loads packages', () => {
    const volumes = services.n8n.volumes!;
    for (const volume of volumes) {
      const [source] = volume.split(':');
      if (source.startsWith('./')) {
        // dist/ is built by `npm run build`; everything else is committed.
        if (source !== './dist') expect(existsSync(path.join(REPO_ROOT, source)), source).toBe(true);
      } else {
        expect(compose.volumes, source).toHaveProperty(source);
      }
    }
    expect(volumes).toContain('./dist:/home/node/.n8n/nodes/node_modules/n8n-nodes-judge-assistant/dist:ro');
  });

  it('starts n8n only after Postgres is healthy and the import succeeded; publishes only n8n, on loopback', () => {
    expect(services.n8n.depends_on).toMatchObject({
      postgres: { condition: 'service_healthy' },
      'n8n-import': { condition: 'service_completed_successfully' },
    });
    expect(services.n8n.ports).toEqual(['127.0.0.1:${N8N_PORT:-5678}:5678']);
    for (const name of ['postgres', 'judge', 'n8n-import', 'searxng', 'browser']) {
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
    expect(services.judge.build!.dockerfile_inline).toContain('judge/dist/cli/main.js');
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
    expect(browser.build!.dockerfile_inline).toContain('chromium');
    expect(browser.build!.dockerfile_inline).toContain('assistant/dist/browser/main.js');
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
});
