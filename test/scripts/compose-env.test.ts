// The Docker path's settings file: answers passed on, secrets generated once and kept, the owner's hash kept while
// the password is unchanged, queue mode, and values compose would misread refused by name.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { INSTANCE_CAP_SETTINGS } from '../../assistant/src/budget/instance-caps';
import { JOB_CAPS_SETTING } from '../../assistant/src/budget/job-caps';
import { SETTINGS_FROM_ENV } from '../../assistant/src/setup/prepare-database';
import { composeSettings, hostFromContainers, renderComposeEnv } from '../../scripts/installer/compose-env';
import { parseEnv } from '../../scripts/installer/env-file';

const answers = {
  ASSISTANT_LLM_API_KEY: 'sk-answer',
  ASSISTANT_TELEGRAM_BOT_TOKEN: '123:abc',
  ASSISTANT_DOMAIN: '',
  ASSISTANT_STYLE: "friendly, don't ramble",
  N8N_PUBLIC_URL: 'https://198.51.100.4/',
};
const options = { queue: false, caddyDir: '/etc/judge-assistant/caddy', bcryptRounds: 4 };

describe('composeSettings', () => {
  it("passes the answers on, generates every secret compose requires, and hashes the owner's password", () => {
    const settings = composeSettings(answers, {}, options);
    expect(settings).toMatchObject({
      ASSISTANT_LLM_API_KEY: 'sk-answer',
      ASSISTANT_STYLE: "friendly, don't ramble",
      N8N_PUBLIC_URL: 'https://198.51.100.4/',
      OWNER_EMAIL: 'owner@example.com',
      COMPOSE_PROFILES: '',
      N8N_EXECUTIONS_MODE: 'regular',
      CADDYFILE: '/etc/judge-assistant/caddy/Caddyfile',
      CADDY_CERTS_DIR: '/etc/judge-assistant/caddy/certs',
      ASSISTANT_WEBHOOK_CERTIFICATE: '/certs/server.pem',
    });
    const compose = readFileSync(path.join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
    const required = [...compose.matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((match) => match[1]);
    for (const name of new Set(required)) expect(settings[name], name).toMatch(/^\S{8,}$/);
    expect(bcrypt.compareSync(settings.OWNER_PASSWORD, settings.OWNER_PASSWORD_HASH)).toBe(true);
    expect(composeSettings({ ...answers, ASSISTANT_DOMAIN: 'bot.example.org' }, {}, options)).toMatchObject({
      ASSISTANT_WEBHOOK_CERTIFICATE: '',
    });
    expect(composeSettings(answers, {}, { ...options, queue: true })).toMatchObject({
      COMPOSE_PROFILES: 'queue',
      N8N_EXECUTIONS_MODE: 'queue',
    });
  });

  it("generates the model gateway's key once, and points voice at the gateway only with a transcription provider", () => {
    const first = composeSettings(answers, {}, options);
    expect(first.ASSISTANT_GATEWAY_KEY).toMatch(/^[\w-]{32}$/);
    expect(first.ASSISTANT_TRANSCRIPTION_GATEWAY_URL).toBe('');
    expect(first.JUDGE_CONSOLE_ASSISTANT_VOICE).toBe('off');
    const voice = composeSettings(
      answers,
      { ...first, ASSISTANT_TRANSCRIPTION_BASE_URL: 'http://127.0.0.1:9000/v1' },
      options,
    );
    expect(voice).toMatchObject({
      ASSISTANT_GATEWAY_KEY: first.ASSISTANT_GATEWAY_KEY,
      ASSISTANT_TRANSCRIPTION_BASE_URL: 'http://host.docker.internal:9000/v1',
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: 'http://gateway:5681/transcription/v1',
      JUDGE_CONSOLE_ASSISTANT_VOICE: 'on',
    });
    expect(composeSettings(answers, { ...voice, ASSISTANT_TRANSCRIPTION_BASE_URL: '' }, options)).toMatchObject({
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: '',
      JUDGE_CONSOLE_ASSISTANT_VOICE: 'off',
    });
  });

  it('points embeddings at the gateway with a provider; answered off, the providers of embeddings and voice go', () => {
    const on = composeSettings(
      {
        ...answers,
        ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small',
        ASSISTANT_EMBEDDINGS_BASE_URL: 'https://api.openai.com/v1',
        ASSISTANT_EMBEDDINGS_API_KEY: 'sk-embeddings-key',
        ASSISTANT_TRANSCRIPTION_BASE_URL: 'https://api.openai.com/v1',
      },
      {},
      options,
    );
    expect(on).toMatchObject({
      ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-small',
      ASSISTANT_EMBEDDINGS_GATEWAY_URL: 'http://gateway:5681/embeddings/v1',
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: 'http://gateway:5681/transcription/v1',
    });
    const off = composeSettings(
      {
        ...answers,
        ASSISTANT_EMBEDDINGS_MODEL: 'off',
        ASSISTANT_EMBEDDINGS_BASE_URL: '',
        ASSISTANT_EMBEDDINGS_API_KEY: '',
        ASSISTANT_TRANSCRIPTION_BASE_URL: '',
        ASSISTANT_TRANSCRIPTION_API_KEY: '',
      },
      on,
      options,
    );
    expect(off).toMatchObject({
      ASSISTANT_EMBEDDINGS_MODEL: 'off',
      ASSISTANT_EMBEDDINGS_BASE_URL: '',
      ASSISTANT_EMBEDDINGS_API_KEY: '',
      ASSISTANT_EMBEDDINGS_GATEWAY_URL: '',
      ASSISTANT_TRANSCRIPTION_BASE_URL: '',
      ASSISTANT_TRANSCRIPTION_GATEWAY_URL: '',
    });
  });

  it("keeps the secrets, the hash and the operator's own settings on a re-run, and takes a changed answer", () => {
    const first = composeSettings(answers, {}, options);
    const again = composeSettings(
      { ...answers, ASSISTANT_LLM_API_KEY: 'sk-new' },
      { ...first, HTTPS_PORT: '8443' },
      options,
    );
    expect(again).toEqual({ ...first, ASSISTANT_LLM_API_KEY: 'sk-new', HTTPS_PORT: '8443' });
    const newPassword = composeSettings(answers, { ...first, OWNER_PASSWORD: 'changed-password' }, options);
    expect(newPassword.OWNER_PASSWORD_HASH).not.toBe(first.OWNER_PASSWORD_HASH);
    expect(bcrypt.compareSync('changed-password', newPassword.OWNER_PASSWORD_HASH)).toBe(true);
  });

  it("passes on every setting the database step stores, the instance's and the jobs' spending caps among them", () => {
    const caps = [
      ...Object.values(INSTANCE_CAP_SETTINGS).flatMap((names) => [names.usd, names.tokens]),
      JOB_CAPS_SETTING,
    ];
    const given = Object.fromEntries(
      [...SETTINGS_FROM_ENV.map(([name]) => name), ...caps].map((name, index) => [name, `value-${index}`]),
    );
    const settings = composeSettings({ ...answers, ...given }, {}, options);
    expect(settings).toMatchObject(given);
    const written = composeSettings(
      { ...answers, ASSISTANT_BUDGET_DAY_USD: '2.5', ASSISTANT_BUDGET_MONTH_USD: 'off' },
      {},
      options,
    );
    expect(written).toMatchObject({ ASSISTANT_BUDGET_DAY_USD: '2.5', ASSISTANT_BUDGET_MONTH_USD: 'off' });
  });

  it('refuses, by name, a value compose would interpolate or cut', () => {
    expect(() => composeSettings({ ...answers, ASSISTANT_LLM_API_KEY: 'sk-$HOME' }, {}, options)).toThrow(
      /ASSISTANT_LLM_API_KEY: \$, backslashes/,
    );
    expect(() => composeSettings({ ...answers, ASSISTANT_STYLE: 'short #1' }, {}, options)).toThrow(/ASSISTANT_STYLE/);
    expect(() => composeSettings({ ...answers, ASSISTANT_NAME: '"Bob"' }, {}, options)).toThrow(/ASSISTANT_NAME/);
  });
});

describe('scripts/installer/compose-env.ts', () => {
  it('writes compose.env (mode 600) that docker-compose reads back, and keeps it on a re-run', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'compose-env-'));
    writeFileSync(
      path.join(dir, 'local.env'),
      Object.entries(answers)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    );
    const run = () =>
      execFileSync('node_modules/.bin/tsx', [
        'scripts/installer/compose-env.ts',
        '--env',
        path.join(dir, 'local.env'),
        '--out',
        path.join(dir, 'compose.env'),
      ]).toString();
    expect(run()).toMatch(
      /compose settings written to .*compose\.env \(mode 600\); changed: .*POSTGRES_PASSWORD \(secret\)/,
    );
    const file = path.join(dir, 'compose.env');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = readFileSync(file, 'utf8');
    expect(written).toMatch(/^OWNER_PASSWORD_HASH='\$2[aby]\$10\$.{53}'$/m);
    expect(run()).toMatch(/compose settings unchanged/);
    expect(readFileSync(file, 'utf8')).toBe(written);
    // docker-compose itself reads it: the hash arrives unquoted and uninterpolated.
    const config = execFileSync('docker-compose', ['--env-file', file, '-f', 'docker-compose.yml', 'config'], {
      encoding: 'utf8',
    });
    const hash = parseEnv(written, file).OWNER_PASSWORD_HASH.slice(1, -1);
    expect(config).toContain(`N8N_INSTANCE_OWNER_PASSWORD_HASH: ${hash.replace(/\$/g, '$$$$')}`);
    // The judge reaches its model through the gateway, with the gateway's generated key.
    const gatewayKey = parseEnv(written, file).ASSISTANT_GATEWAY_KEY;
    expect(config).toContain('JUDGE_OPENAI_BASE_URL: http://gateway:5681/judge/v1');
    expect(config).toContain(`JUDGE_OPENAI_API_KEY: ${gatewayKey}`);
    expect(config).toContain('JUDGE_OPENAI_MODEL: qwen2.5:7b-instruct#job=judge');
  });
});

describe('hostFromContainers', () => {
  it('points a model server on this host at host.docker.internal, and leaves others alone', () => {
    expect(hostFromContainers('http://127.0.0.1:11434/v1')).toBe('http://host.docker.internal:11434/v1');
    expect(hostFromContainers('http://localhost/v1')).toBe('http://host.docker.internal/v1');
    expect(hostFromContainers('https://api.openai.com/v1')).toBe('https://api.openai.com/v1');
    expect(hostFromContainers('http://127.0.0.10:1/v1')).toBe('http://127.0.0.10:1/v1');
    expect(
      composeSettings({ ...answers, ASSISTANT_LLM_BASE_URL: 'http://127.0.0.1:11434/v1' }, {}, options),
    ).toMatchObject({ ASSISTANT_LLM_BASE_URL: 'http://host.docker.internal:11434/v1' });
    // Every provider the gateway reaches, the operator's own settings too.
    expect(
      composeSettings(answers, { ASSISTANT_EMBEDDINGS_BASE_URL: 'http://localhost:8080/v1' }, options),
    ).toMatchObject({ ASSISTANT_EMBEDDINGS_BASE_URL: 'http://host.docker.internal:8080/v1' });
  });
});

describe('renderComposeEnv', () => {
  it('quotes only the hash', () => {
    expect(renderComposeEnv({ A: 'x', OWNER_PASSWORD_HASH: '$2a$x' })).toBe(
      "# docker compose settings of this install (setup.sh). Secrets: keep this file private (mode 600).\nA=x\nOWNER_PASSWORD_HASH='$2a$x'\n",
    );
  });
});
