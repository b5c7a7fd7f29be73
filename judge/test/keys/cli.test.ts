// `systemone-judge keys` (the built CLI) on a key file, with `serve` using the same file.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileKeyStore } from '../../src/keys/file-store';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-logprobs';
import { BIN, spawnCli } from './cli-helper';

const dir = mkdtempSync(path.join(tmpdir(), 'judge-keys-cli-'));
const file = path.join(dir, 'keys.json');
const store = ['--keys-file', file];
let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => fake?.close());

function expectOneLineError(stderr: string, pattern: RegExp) {
  expect(stderr).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('systemone-judge keys', () => {
  it('create prints the key once (stdout), list shows it without the key, the file is private', async () => {
    const created = await spawnCli([
      'keys',
      'create',
      '--name',
      'ci bot',
      '--rate',
      '5/s',
      '--tokens-per-minute',
      '10_000',
      ...store,
    ]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^s1k_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(created.stderr).toMatch(/created key [0-9a-f]{12} "ci bot" \(5 requests\/s, 10000 input tokens\/min\)/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(key);

    const table = await spawnCli(['keys', 'list', ...store]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^ID\s+NAME\s+CREATED\s+STATUS\s+LIMITS/);
    expect(table.stdout).toMatch(new RegExp(`${key.slice(4, 16)}\\s+ci bot\\s+\\S+\\s+active\\s+5 requests/s`));
    expect(table.stdout + table.stderr).not.toContain(key);
  });

  it('serve takes keys from the file (no JUDGE_API_KEYS); revoke refuses the key; usage shows the cost', async () => {
    const created = await spawnCli(['keys', 'create', '--name', 'served', '--json', ...store]);
    const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
    const serve = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: {
        PATH: process.env.PATH ?? '',
        JUDGE_KEYS_FILE: file,
        JUDGE_KEY_CACHE_TTL_MS: '0',
        JUDGE_BACKEND: 'openai',
        JUDGE_OPENAI_BASE_URL: fake.baseUrl,
        JUDGE_OPENAI_MODEL: 'fake-model',
        JUDGE_OPENAI_MODEL_ID: 'judge-fake-2026-01-01',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    serve.stderr.on('data', (c) => (stderr += c));
    serve.stdout.resume();
    const exited = new Promise<number>((resolve) => serve.on('close', (code) => resolve(code ?? -1)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        serve.stderr.on('data', () => {
          const match = /listening on (http:\/\/\S+)/.exec(stderr);
          if (match) resolve(match[1]);
        });
        exited.then((code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
      });
      const call = () =>
        fetch(`${url}/v1/systemone`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'jev-latest',
            state: 's',
            questions: { q: { type: 'noul', instructions: 'ok?' } },
          }),
        });
      const first = await call();
      expect(first.status).toBe(200);
      const tokens = ((await first.json()) as { usage: { input_tokens: number } }).usage.input_tokens;

      const revoked = await spawnCli(['keys', 'revoke', 'served', ...store]);
      expect(revoked.code).toBe(0);
      expect(revoked.stderr).toMatch(new RegExp(`revoked key ${id} "served"`));
      expect((await call()).status).toBe(401);

      serve.kill('SIGTERM');
      expect(await exited).toBe(0);
      const report = await spawnCli(['keys', 'usage', '--key', id, '--json', ...store]);
      expect(report.code).toBe(0);
      expect(JSON.parse(report.stdout)).toMatchObject({
        price: { currency: 'USD', input_per_million: 0.042 },
        keys: [
          {
            id,
            name: 'served',
            total: { requests: 1, input_tokens: tokens, cost: expect.closeTo((tokens * 0.042) / 1e6, 12) },
          },
        ],
        total: { requests: 1, input_tokens: tokens },
      });
      const text = await spawnCli(['keys', 'usage', ...store]);
      expect(text.stdout).toMatch(new RegExp(`total\\s+${id}\\s+served\\s+1\\s+${tokens}\\s+0\\.0000\\d+ USD`));
      const again = await spawnCli(['keys', 'revoke', id, ...store]);
      expect(again.code).toBe(0);
      expect(again.stderr).toMatch(/was revoked at/);
    } finally {
      serve.kill('SIGKILL');
    }
  });

  it('the CLI and a writer in another process share the file without losing changes', async () => {
    const shared = path.join(dir, 'shared.json');
    const writer = new FileKeyStore(shared);
    const minute = Date.UTC(2026, 6, 15, 12);
    const creates = Array.from({ length: 4 }, (_, i) =>
      spawnCli(['keys', 'create', '--name', `p${i}`, '--keys-file', shared]),
    );
    for (let i = 0; i < 20; i++) await writer.addUsage([{ keyId: 'env-x', minute, requests: 1, inputTokens: 2 }]);
    expect((await Promise.all(creates)).map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect((await writer.listKeys()).map((k) => k.name).sort()).toEqual(['p0', 'p1', 'p2', 'p3']);
    expect(await writer.usage({ from: '2026-07-15', to: '2026-07-15' })).toEqual([
      { keyId: 'env-x', day: '2026-07-15', requests: 20, inputTokens: 40 },
    ]);
  });

  it.each([
    ['a bad rate', ['create', '--name', 'x', '--rate', 'fast', ...store], 2, /--rate must be a number of requests > 0/],
    [
      'a zero token limit',
      ['create', '--name', 'x', '--monthly-tokens', '0', ...store],
      2,
      /--monthly-tokens must be a whole/,
    ],
    [
      'a fractional token limit',
      ['create', '--name', 'x', '--tokens-per-minute', '1.5', ...store],
      2,
      /--tokens-per-minute/,
    ],
    ['a negative value', ['create', '--name', 'x', '--monthly-tokens', '-5', ...store], 2, /--monthly-tokens/],
    ['no name', ['create', ...store], 2, /--name is required/],
    ['a bad name', ['create', '--name', ' spaced', ...store], 2, /--name must be 1–100 characters/],
    ['a taken name', ['create', '--name', 'ci bot', ...store], 1, /An active key is already named "ci bot"/],
    ['an unknown flag', ['list', '--frob', ...store], 2, /--frob/],
    ['an unknown subcommand', ['rotate', ...store], 2, /unknown subcommand "rotate"/],
    ['no subcommand', [], 2, /name a subcommand/],
    ['no store', ['list'], 2, /no key store: give --keys-file or --database-url/],
    ['two stores', ['list', ...store, '--database-url', 'postgres://x'], 2, /--keys-file or --database-url, not both/],
    ['a non-postgres URL', ['list', '--database-url', 'mysql://x'], 2, /--database-url: must be a postgres/],
    [
      'an unreachable database',
      ['list', '--database-url', 'postgres://u@127.0.0.1:1/db'],
      1,
      /key database is not usable/,
    ],
    ['a bad date', ['usage', '--from', '2026-02-30', ...store], 2, /--from must be a date written YYYY-MM-DD/],
    ['revoking nothing', ['revoke', 'nobody', ...store], 1, /no key has the id or active name "nobody"/],
    ['revoke without a key', ['revoke', ...store], 2, /keys revoke <id \| name>/],
  ])('%s → its exit code and one clear line naming the problem', async (_name, args, code, pattern) => {
    const result = await spawnCli(['keys', ...args]);
    expect(result.code).toBe(code);
    expectOneLineError(result.stderr, pattern);
    expect(result.stdout).toBe('');
  });

  it('keys --help lists the subcommands', async () => {
    const help = await spawnCli(['keys', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/keys create --name <name> \[--rate <R>\/s\]/);
    expect(help.stdout).toMatch(/keys usage/);
  });
});
