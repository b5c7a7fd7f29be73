// setup.sh's questions (scripts/installer/main.ts) against loopback fakes of the provider (its model list) and the
// Telegram Bot API (getMe, getUpdates): non-interactive from --answers, every bad answer named; the chat id found
// from the message the operator sent to the bot; local.env written mode 600 keeping other settings; a re-run that
// changes nothing says so, one that changes the key says which; and the same flow once through a real terminal (a
// PTY from python3), asking again after a bad answer and not echoing the key.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { loadCredentialTemplates, CREDENTIAL_TEMPLATES_DIR } from '../../scripts/runtime/credentials';
import { gatewayClientEnv } from '../../scripts/runtime/gateway';
import { readEnvFile } from '../../scripts/installer/env-file';
import { startOpenAiChatFake, type OpenAiChatFake } from '../fakes/openai-chat';
import { startTelegramBotApiFake, TelegramBotApiFakeControl, type TelegramBotApiFake } from '../fakes/telegram-bot-api';

const exec = promisify(execFile);
const KEY = 'sk-installer-test-key-0123456789';
const TOKEN = '7000000123:installer-test-token-abcdefghijklmnop';
const CHAT = 424299;

let llm: OpenAiChatFake;
let telegram: TelegramBotApiFake;
let dir: string;

const failure = (e: { stderr: string; stdout: string; code: number }) => e;

function answers(file: string, values: Record<string, string>): string {
  const at = path.join(dir, file);
  writeFileSync(
    at,
    Object.entries(values)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n') + '\n',
  );
  return at;
}

const GOOD = {
  ASSISTANT_PROVIDER: 'openai',
  ASSISTANT_LLM_API_KEY: KEY,
  ASSISTANT_TELEGRAM_BOT_TOKEN: TOKEN,
  ASSISTANT_TIME_ZONE: 'Europe/Berlin',
  ASSISTANT_NAME: 'Ada',
  ASSISTANT_LANGUAGE: 'german',
  ASSISTANT_STYLE: 'short and warm',
};

/** This process's environment without any setting the installer would take as an answer. */
function withoutSettings(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith('ASSISTANT_') && key !== 'N8N_API_KEY'),
  );
}

function run(envFile: string, extra: string[]) {
  return exec(
    'node_modules/.bin/tsx',
    [
      'scripts/installer/main.ts',
      '--env',
      envFile,
      '--telegram-api',
      telegram.url,
      '--provider-base-url',
      `${llm.url}/v1`,
      ...extra,
    ],
    { env: withoutSettings() },
  );
}

beforeAll(async () => {
  llm = await startOpenAiChatFake({ apiKey: KEY });
  telegram = await startTelegramBotApiFake({ token: TOKEN });
  dir = mkdtempSync(path.join(tmpdir(), 'installer-'));
  // The operator sends their bot a message before the chat id question.
  await new TelegramBotApiFakeControl(telegram.url).deliverText(CHAT, 'hello bot');
});
afterAll(async () => {
  await llm?.close();
  await telegram?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('scripts/installer/main.ts', () => {
  it('writes checked answers into local.env (mode 600), finding the chat id, keeping other settings', async () => {
    const envFile = path.join(dir, 'state', 'local.env');
    const { stdout } = await run(envFile, ['--non-interactive', '--answers', answers('good.env', GOOD)]);
    expect(stdout).toMatch(/^settings written to .*local\.env \(mode 600\); changed: /);
    expect(stdout).toContain('ASSISTANT_LLM_API_KEY (secret)');
    expect(stdout).not.toContain(KEY);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);
    const written = readFileSync(envFile, 'utf8');
    for (const line of [
      'ASSISTANT_PROVIDER=openai',
      `ASSISTANT_LLM_API_KEY=${KEY}`,
      'ASSISTANT_LLM_MODEL=gpt-4o-mini',
      `ASSISTANT_LLM_BASE_URL=${llm.url}/v1`,
      `ASSISTANT_TELEGRAM_OWNER_CHAT_ID=${CHAT}`,
      'ASSISTANT_OWNER_USER_ID=owner',
      // Who may talk to the bot, not given: the owner only (today's behaviour).
      'ASSISTANT_DM_POLICY_TELEGRAM=owner',
      'ASSISTANT_TIME_ZONE=Europe/Berlin',
      'ASSISTANT_LANGUAGE=german',
      'ASSISTANT_DOMAIN=',
      // The spending caps, not given: the suggested ones, never none.
      'ASSISTANT_BUDGET_DAY_USD=1',
      'ASSISTANT_BUDGET_MONTH_USD=20',
      // The judge, embeddings and voice, not given: the chat's provider and what it offers, each tried for real.
      'JUDGE_PROVIDER=openai',
      'JUDGE_BACKEND=openai',
      'JUDGE_OPENAI_MODEL=gpt-4o-mini',
      `JUDGE_OPENAI_BASE_URL=${llm.url}/v1`,
      `JUDGE_OPENAI_API_KEY=${KEY}`,
      'ASSISTANT_EMBEDDINGS_MODEL=text-embedding-3-small',
      `ASSISTANT_EMBEDDINGS_BASE_URL=${llm.url}/v1`,
      // The test embedding's size (the fake's default, as OpenAI's for this model): pgvector's index at install.
      'ASSISTANT_EMBEDDING_DIMENSIONS=1536',
      'ASSISTANT_TRANSCRIPTION_MODEL=whisper-1',
      `ASSISTANT_TRANSCRIPTION_BASE_URL=${llm.url}/v1`,
    ]) {
      expect(written).toContain(`${line}\n`);
    }
    // A re-run with the same answers changes nothing; a new key is named (not shown), other settings stay.
    writeFileSync(envFile, `${written}JUDGE_PORT=8787\n`);
    expect((await run(envFile, ['--non-interactive', '--answers', answers('good.env', GOOD)])).stdout).toMatch(
      /^settings unchanged/,
    );
    const again = await run(envFile, [
      '--non-interactive',
      '--answers',
      answers('name.env', { ...GOOD, ASSISTANT_NAME: 'Bea' }),
    ]);
    expect(again.stdout).toMatch(/changed: ASSISTANT_NAME=Bea\n$/);
    expect(readFileSync(envFile, 'utf8')).toContain('JUDGE_PORT=8787\n');
  });

  it('asks for the locale apart from the text-search language, whose default follows the locale', async () => {
    const envFile = path.join(dir, 'locale', 'local.env');
    const { ASSISTANT_LANGUAGE: _language, ...withoutLanguage } = GOOD;
    await run(envFile, [
      '--non-interactive',
      '--answers',
      answers('locale.env', { ...withoutLanguage, ASSISTANT_LOCALE: 'de-at' }),
    ]);
    const written = readFileSync(envFile, 'utf8');
    expect(written).toContain('ASSISTANT_LOCALE=de-AT\n');
    expect(written).toContain('ASSISTANT_LANGUAGE=german\n');
  });

  it('asks the daily and monthly spending caps in dollars, off for none, written as checked', async () => {
    const envFile = path.join(dir, 'caps', 'local.env');
    await run(envFile, [
      '--non-interactive',
      '--answers',
      answers('caps.env', { ...GOOD, ASSISTANT_BUDGET_DAY_USD: '$0.50', ASSISTANT_BUDGET_MONTH_USD: 'OFF' }),
    ]);
    const written = readFileSync(envFile, 'utf8');
    expect(written).toContain('ASSISTANT_BUDGET_DAY_USD=0.5\n');
    expect(written).toContain('ASSISTANT_BUDGET_MONTH_USD=off\n');
    // A settings file from before the question: its empty cap becomes the suggested one.
    writeFileSync(envFile, written.replace('ASSISTANT_BUDGET_DAY_USD=0.5', 'ASSISTANT_BUDGET_DAY_USD='));
    await run(envFile, ['--non-interactive', '--answers', answers('good.env', GOOD)]);
    expect(readFileSync(envFile, 'utf8')).toContain('ASSISTANT_BUDGET_DAY_USD=1\n');
  });

  it('with --containers (the Docker path), writes a model server on the loopback as the containers reach it', async () => {
    const envFile = path.join(dir, 'containers', 'compose.env');
    await run(envFile, ['--non-interactive', '--answers', answers('good.env', GOOD), '--containers']);
    const loopback = new URL(llm.url);
    expect(readFileSync(envFile, 'utf8')).toContain(
      `ASSISTANT_LLM_BASE_URL=http://host.docker.internal:${loopback.port}/v1\n`,
    );
    // The same answers again: nothing changed (setup.sh's re-run reports no settings change).
    const again = await run(envFile, ['--non-interactive', '--answers', answers('good.env', GOOD), '--containers']);
    expect(again.stdout).toMatch(/^settings unchanged/);
  });

  it('names every bad answer and writes nothing', async () => {
    const envFile = path.join(dir, 'bad', 'local.env');
    const bad = answers('bad.env', {
      ...GOOD,
      ASSISTANT_LLM_API_KEY: 'sk-wrong-key-000000000000',
      ASSISTANT_TELEGRAM_BOT_TOKEN: '7000000999:not-the-bots-token-abcdefghijklmnopq',
      ASSISTANT_TIME_ZONE: 'Mars/Olympus',
      ASSISTANT_LANGUAGE: 'klingon',
      ASSISTANT_LOCALE: 'Deutsch!',
      ASSISTANT_DOMAIN: 'not a domain',
      ASSISTANT_BUDGET_DAY_USD: 'ten',
      ASSISTANT_BUDGET_MONTH_USD: '-20',
    });
    const result = (await run(envFile, ['--non-interactive', '--answers', bad]).catch(failure)) as {
      code: number;
      stderr: string;
    };
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('ASSISTANT_LLM_API_KEY: OpenAI refused the key (HTTP 401)');
    expect(result.stderr).toContain('ASSISTANT_TELEGRAM_BOT_TOKEN: Telegram refused the bot token');
    expect(result.stderr).toContain('ASSISTANT_TIME_ZONE: "Mars/Olympus" is not a time zone');
    expect(result.stderr).toContain('ASSISTANT_LANGUAGE: "klingon" is not one of simple, arabic');
    expect(result.stderr).toContain('ASSISTANT_LOCALE: "Deutsch!" is not a locale like en, de-AT');
    expect(result.stderr).toContain('ASSISTANT_DOMAIN: "not a domain" is not a domain name');
    expect(result.stderr).toContain('ASSISTANT_BUDGET_DAY_USD: "ten" is not an amount in US dollars like 1 or 0.50');
    expect(result.stderr).toContain('ASSISTANT_BUDGET_MONTH_USD: "-20" is not an amount in US dollars');
    // The models are not tried with a key the provider refused.
    for (const name of ['JUDGE_OPENAI_MODEL', 'ASSISTANT_EMBEDDINGS_MODEL', 'ASSISTANT_TRANSCRIPTION_MODEL'])
      expect(result.stderr).toContain(`${name}: not tried: the API key above was not accepted`);
    expect(result.stderr).not.toContain('sk-wrong-key');
    expect(() => statSync(envFile)).toThrow();
    const missing = (await run(envFile, ['--non-interactive', '--answers', answers('none.env', {})]).catch(
      failure,
    )) as { stderr: string };
    expect(missing.stderr).toContain('ASSISTANT_LLM_API_KEY: is required (OpenAI API key');
  });

  it('asks on a real terminal, again after a bad answer, without echoing the key', async () => {
    const envFile = path.join(dir, 'tty', 'local.env');
    const script = `
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b''
def until(text, limit=60):
    global out
    end = time.time() + limit
    while text.encode() not in out:
        if time.time() > end:
            raise SystemExit('timed out waiting for ' + repr(text) + ' in ' + repr(out[-400:]))
        try:
            out += os.read(fd, 4096)
        except OSError:
            break
for prompt, answer in ${JSON.stringify([
      ['AI provider', 'openai'],
      ['API key', 'sk-wrong-key-000000000000'],
      ['refused the key', KEY],
      ['Chat model', ''],
      ["judge's AI provider", ''],
      ["judge's model", 'no#such-model'],
      ["judge's test question failed", ''],
      ['Embeddings model', ''],
      ['Speech-to-text model', 'off'],
      ['bot token', TOKEN],
      ['chat id', ''],
      ['Who may talk to the bot', 'anyone'],
      ['one of owner, pairing, allowlist', 'pairing'],
      ['Slack bot token', ''],
      ['own email address', ''],
      ['user_id', ''],
      ['Domain', ''],
      ['Time zone', 'Nowhere/Atlantis'],
      ['is not a time zone', 'Europe/Vienna'],
      ["assistant's name", 'Ada'],
      ['Locale', 'ja'],
      ['Language', ''],
      ['Style', ''],
      ['Daily spending cap', 'lots'],
      ['is not an amount in US dollars', '2.5'],
      ['Monthly spending cap', 'off'],
      ['n8n API key', ''],
    ])}:
    until(prompt)
    os.write(fd, (answer + '\\r').encode())
until('settings written', 60)
try:
    while True:
        chunk = os.read(fd, 4096)
        if not chunk: break
        out += chunk
except OSError:
    pass
sys.stdout.write(out.decode('utf-8', 'replace'))
`;
    const child = spawn(
      'python3',
      [
        '-c',
        script,
        'node_modules/.bin/tsx',
        'scripts/installer/main.ts',
        '--env',
        envFile,
        '--telegram-api',
        telegram.url,
        '--provider-base-url',
        `${llm.url}/v1`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: withoutSettings() },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr + stdout.slice(-2000)).toBe(0);
    expect(stdout).toContain('OpenAI refused the key (HTTP 401)');
    expect(stdout).toContain('"Nowhere/Atlantis" is not a time zone');
    expect(stdout).not.toContain(KEY);
    const written = readFileSync(envFile, 'utf8');
    expect(written).toContain(`ASSISTANT_LLM_API_KEY=${KEY}\n`);
    expect(written).toContain('ASSISTANT_DM_POLICY_TELEGRAM=pairing\n');
    expect(written).toContain(`ASSISTANT_TELEGRAM_OWNER_CHAT_ID=${CHAT}\n`);
    expect(written).toContain('ASSISTANT_TIME_ZONE=Europe/Vienna\n');
    // Japanese has no text-search configuration: the language falls back to simple.
    expect(written).toContain('ASSISTANT_LOCALE=ja\n');
    expect(written).toContain('ASSISTANT_LANGUAGE=simple\n');
    expect(stdout).toContain('"lots" is not an amount in US dollars');
    expect(written).toContain('ASSISTANT_BUDGET_DAY_USD=2.5\n');
    expect(written).toContain('ASSISTANT_BUDGET_MONTH_USD=off\n');
    expect(stdout).toContain('does not exist');
    expect(written).toContain('JUDGE_OPENAI_MODEL=gpt-4o-mini\n');
    expect(written).toContain('ASSISTANT_EMBEDDINGS_MODEL=text-embedding-3-small\n');
    expect(written).toContain('ASSISTANT_TRANSCRIPTION_MODEL=off\n');
    expect(written).toContain('ASSISTANT_TRANSCRIPTION_BASE_URL=\n');
  }, 120_000);
});

/** The credentials n8n gets from these settings on the native path (the local stack's gateway in front). */
function nativeCredentials(settings: Record<string, string>) {
  const gateway = { url: 'http://127.0.0.1:5681', key: 'gateway-key-0123456789abcdef' };
  return loadCredentialTemplates([CREDENTIAL_TEMPLATES_DIR], { ...settings, ...gatewayClientEnv(gateway, settings) });
}

/** docker-compose.yml's services as docker-compose interpolates them from this compose.env. */
function composeServices(composeEnv: string): Record<string, { environment: Record<string, string> }> {
  const text = execFileSync('docker-compose', ['--env-file', composeEnv, '-f', 'docker-compose.yml', 'config'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  return (load(text) as { services: Record<string, { environment: Record<string, string> }> }).services;
}

describe('setup.sh --non-interactive: the judge, embeddings and voice, for both install paths', () => {
  const CHOSEN = {
    ...GOOD,
    JUDGE_PROVIDER: 'mistral',
    JUDGE_OPENAI_API_KEY: KEY,
    JUDGE_OPENAI_MODEL: 'mistral-small-latest',
    ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-large',
    ASSISTANT_TRANSCRIPTION_MODEL: 'whisper-1',
  };

  it('natively: local.env holds them, and n8n gets an embeddings and a voice credential at the gateway', async () => {
    const envFile = path.join(dir, 'models-native', 'local.env');
    const { stdout } = await run(envFile, ['--non-interactive', '--answers', answers('models.env', CHOSEN)]);
    expect(stdout).toContain('JUDGE_OPENAI_API_KEY (secret)');
    expect(stdout).not.toContain(KEY);
    const settings = readEnvFile(envFile);
    expect(settings).toMatchObject({
      JUDGE_PROVIDER: 'mistral',
      JUDGE_BACKEND: 'openai',
      JUDGE_OPENAI_MODEL: 'mistral-small-latest',
      JUDGE_OPENAI_BASE_URL: `${llm.url}/v1`,
      JUDGE_OPENAI_API_KEY: KEY,
      ASSISTANT_EMBEDDINGS_MODEL: 'text-embedding-3-large',
      ASSISTANT_EMBEDDINGS_BASE_URL: `${llm.url}/v1`,
      ASSISTANT_EMBEDDINGS_API_KEY: KEY,
      ASSISTANT_TRANSCRIPTION_MODEL: 'whisper-1',
      ASSISTANT_TRANSCRIPTION_BASE_URL: `${llm.url}/v1`,
    });
    const credentials = nativeCredentials(settings);
    expect(credentials.find((c) => c.id === 'asstEmbeddings01')!.data).toMatchObject({
      baseUrl: 'http://127.0.0.1:5681/embeddings/v1',
      model: 'text-embedding-3-large',
    });
    expect(credentials.find((c) => c.id === 'asstTranscribe01')!.data).toMatchObject({
      baseUrl: 'http://127.0.0.1:5681/transcription/v1',
      model: 'whisper-1',
    });
    expect(JSON.stringify(credentials)).not.toContain(KEY);

    // Both off: the providers' settings are cleared and the credentials' base URLs are empty.
    const off = { ...CHOSEN, ASSISTANT_EMBEDDINGS_MODEL: 'OFF', ASSISTANT_TRANSCRIPTION_MODEL: 'off' };
    const again = await run(envFile, ['--non-interactive', '--answers', answers('models-off.env', off)]);
    expect(again.stdout).toContain('ASSISTANT_EMBEDDINGS_MODEL=off');
    const cleared = readEnvFile(envFile);
    expect(cleared).toMatchObject({
      ASSISTANT_EMBEDDINGS_BASE_URL: '',
      ASSISTANT_EMBEDDING_DIMENSIONS: '',
      ASSISTANT_TRANSCRIPTION_BASE_URL: '',
    });
    for (const id of ['asstEmbeddings01', 'asstTranscribe01'])
      expect(nativeCredentials(cleared).find((c) => c.id === id)!.data).toMatchObject({ baseUrl: '' });
  });

  it('with Docker: compose.env holds them, the gateway gets the providers, the judge and n8n the gateway', async () => {
    const composeEnv = path.join(dir, 'models-docker', 'compose.env');
    await run(composeEnv, ['--non-interactive', '--answers', answers('models.env', CHOSEN), '--containers']);
    await exec('node_modules/.bin/tsx', [
      'scripts/installer/compose-env.ts',
      '--env',
      composeEnv,
      '--out',
      composeEnv,
      '--caddy-dir',
      path.join(dir, 'models-docker', 'caddy'),
    ]);
    const services = composeServices(composeEnv);
    const provider = `http://host.docker.internal:${new URL(llm.url).port}/v1`;
    expect(services.gateway.environment).toMatchObject({
      JUDGE_OPENAI_BASE_URL: provider,
      JUDGE_OPENAI_API_KEY: KEY,
      ASSISTANT_EMBEDDINGS_BASE_URL: provider,
      ASSISTANT_EMBEDDINGS_API_KEY: KEY,
      ASSISTANT_TRANSCRIPTION_BASE_URL: provider,
    });
    expect(services.judge.environment.JUDGE_OPENAI_MODEL).toBe('mistral-small-latest#job=judge');
    const credentials = loadCredentialTemplates([CREDENTIAL_TEMPLATES_DIR], services['n8n-import'].environment);
    expect(credentials.find((c) => c.id === 'asstEmbeddings01')!.data).toMatchObject({
      baseUrl: 'http://gateway:5681/embeddings/v1',
      model: 'text-embedding-3-large',
    });
    expect(credentials.find((c) => c.id === 'asstTranscribe01')!.data).toMatchObject({
      baseUrl: 'http://gateway:5681/transcription/v1',
      model: 'whisper-1',
    });
    expect(JSON.stringify(credentials)).not.toContain(KEY);
  });

  it('on Ollama: embeddings only when named, no voice; a judge model the provider does not serve is named', async () => {
    const ollama = await startOpenAiChatFake({ models: ['qwen2.5:7b-instruct', 'nomic-embed-text'] });
    try {
      const local = { ...GOOD, ASSISTANT_PROVIDER: 'ollama', ASSISTANT_LLM_API_KEY: 'ollama' };
      const runOn = (envFile: string, values: Record<string, string>, file: string) =>
        exec(
          'node_modules/.bin/tsx',
          [
            'scripts/installer/main.ts',
            ...['--env', envFile, '--telegram-api', telegram.url, '--provider-base-url', `${ollama.url}/v1`],
            ...['--non-interactive', '--answers', answers(file, values)],
          ],
          { env: withoutSettings() },
        );
      const envFile = path.join(dir, 'ollama', 'local.env');
      await runOn(envFile, local, 'ollama.env');
      expect(readEnvFile(envFile)).toMatchObject({
        JUDGE_PROVIDER: 'ollama',
        JUDGE_OPENAI_MODEL: 'qwen2.5:7b-instruct',
        ASSISTANT_EMBEDDINGS_MODEL: 'off',
        ASSISTANT_EMBEDDINGS_BASE_URL: '',
        ASSISTANT_TRANSCRIPTION_MODEL: 'off',
      });
      await runOn(envFile, { ...local, ASSISTANT_EMBEDDINGS_MODEL: 'nomic-embed-text' }, 'ollama-embed.env');
      expect(readEnvFile(envFile)).toMatchObject({
        ASSISTANT_EMBEDDINGS_MODEL: 'nomic-embed-text',
        ASSISTANT_EMBEDDINGS_BASE_URL: `${ollama.url}/v1`,
      });
      const bad = (await runOn(
        envFile,
        { ...local, ASSISTANT_TRANSCRIPTION_MODEL: 'whisper-1', JUDGE_OPENAI_MODEL: 'qwen#unknown' },
        'ollama-bad.env',
      ).catch(failure)) as { code: number; stderr: string };
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(
        'ASSISTANT_TRANSCRIPTION_MODEL: Ollama (local) offers no speech to text: answer off',
      );
      expect(bad.stderr).toMatch(/JUDGE_OPENAI_MODEL: the judge's test question failed: .*404.*does not exist/);
    } finally {
      await ollama.close();
    }
  });
});
