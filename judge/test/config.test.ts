import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../src/config';

const openai = { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', upstreamModel: 'm', id: 'judge-m-2026' };
const base = { apiKeys: ['k'], backend: openai };

describe('config', () => {
  it('reads keys from JUDGE_API_KEYS before the file, and env overlays the backend', () => {
    const config = parseConfig(
      { apiKeys: ['file-key'], backend: openai, aliases: { 'jev-latest': 'judge-m-2026' } },
      { JUDGE_API_KEYS: ' a , b ,', JUDGE_OPENAI_API_KEY: 'sk-env', JUDGE_PORT: '9999' },
    );
    expect(config.apiKeys).toEqual(['a', 'b']);
    expect(config.port).toBe(9999);
    expect(config.host).toBe('127.0.0.1');
    expect(config.backend).toMatchObject({
      kind: 'openai',
      apiKey: 'sk-env',
      upstreamModel: 'm',
      id: 'judge-m-2026',
      groupSize: 15,
    });
    expect(config.aliases).toEqual({ 'jev-latest': 'judge-m-2026' });
  });

  it('reads the scoring settings of the OpenAI-compatible backend from env before the file', () => {
    const config = parseConfig(
      { ...base, backend: { ...openai, scoring: 'samples', samples: 3, minCoverage: 0.2 } },
      { JUDGE_OPENAI_MIN_COVERAGE: '0.75', JUDGE_OPENAI_SAMPLE_MAX_TOKENS: '512' },
    );
    expect(config.backend).toMatchObject({ scoring: 'samples', samples: 3, minCoverage: 0.75, sampleMaxTokens: 512 });
    expect(parseConfig(base).backend).toMatchObject({
      scoring: 'auto',
      samples: 8,
      minCoverage: 0,
      sampleMaxTokens: 16,
    });
  });

  it("names an OpenAI-compatible model after the upstream model, without the model gateway's caller suffix", () => {
    const config = parseConfig(
      {},
      {
        JUDGE_API_KEYS: 'k',
        JUDGE_BACKEND: 'openai',
        JUDGE_OPENAI_BASE_URL: 'http://127.0.0.1:5681/judge/v1',
        JUDGE_OPENAI_MODEL: 'qwen2.5:7b-instruct#job=judge',
      },
    );
    expect(config.backend).toMatchObject({
      upstreamModel: 'qwen2.5:7b-instruct#job=judge',
      id: 'judge-openai-qwen2.5:7b-instruct',
    });
  });

  it('builds a remote backend from env alone, with JUDGE_ALIASES', () => {
    const config = parseConfig(
      {},
      {
        JUDGE_API_KEYS: 'k',
        JUDGE_BACKEND: 'remote',
        JUDGE_REMOTE_BASE_URL: 'https://api.example',
        JUDGE_REMOTE_API_KEY: 'rk',
        JUDGE_ALIASES: 'jev-latest=jev-2026-01-01',
      },
    );
    expect(config.backend).toEqual({ kind: 'remote', baseUrl: 'https://api.example', apiKey: 'rk', timeoutMs: 60000 });
    expect(config.aliases).toEqual({ 'jev-latest': 'jev-2026-01-01' });
  });

  it.each([
    ['no keys', {}, {}, 'apiKeys'],
    ['keys not a list', { apiKeys: 'k', backend: openai }, {}, 'apiKeys'],
    ['no backend kind', { apiKeys: ['k'] }, {}, 'backend.kind'],
    ['an unknown backend kind', { apiKeys: ['k'], backend: { kind: 'magic' } }, {}, 'backend.kind'],
    [
      'openai without baseUrl',
      { apiKeys: ['k'], backend: { kind: 'openai', upstreamModel: 'm' } },
      {},
      'backend.baseUrl',
    ],
    [
      'openai with a bad concurrency',
      { apiKeys: ['k'], backend: { ...openai, concurrency: 0 } },
      {},
      'backend.concurrency',
    ],
    [
      'remote without key',
      { apiKeys: ['k'], backend: { kind: 'remote', baseUrl: 'http://x' } },
      {},
      'backend.apiKey (or JUDGE_REMOTE_API_KEY)',
    ],
    ['a bad port', { apiKeys: ['k'], backend: openai, port: 70000 }, {}, 'port'],
    ['a bad env port', { apiKeys: ['k'], backend: openai }, { JUDGE_PORT: 'eighty' }, 'port'],
    ['an unknown limit', { apiKeys: ['k'], backend: openai, limits: { maxFoo: 1 } }, {}, 'limits.maxFoo'],
    ['a bad temperature', { apiKeys: ['k'], backend: openai, temperatures: { choice: 0 } }, {}, 'temperatures.choice'],
    ['a bad alias list', { apiKeys: ['k'], backend: openai }, { JUDGE_ALIASES: 'jev-latest' }, 'JUDGE_ALIASES'],
    ['admission not an object', { apiKeys: ['k'], backend: openai, admission: 4 }, {}, 'admission'],
    ['an unknown admission setting', { ...base, admission: { slots: 4 } }, {}, 'admission.slots'],
    ['a zero concurrency', { ...base, admission: { concurrency: 0 } }, {}, 'admission.concurrency'],
    ['a negative queue', { ...base, admission: { queueLength: -1 } }, {}, 'admission.queueLength'],
    ['a bad env deadline', base, { JUDGE_ADMISSION_DEADLINE_MS: 'soon' }, 'JUDGE_ADMISSION_DEADLINE_MS'],
    ['a coverage floor above 1', { ...base, backend: { ...openai, minCoverage: 1.5 } }, {}, 'backend.minCoverage'],
    ['a bad env coverage floor', base, { JUDGE_OPENAI_MIN_COVERAGE: 'high' }, 'JUDGE_OPENAI_MIN_COVERAGE'],
    ['an unknown scoring method', { ...base, backend: { ...openai, scoring: 'guess' } }, {}, 'backend.scoring'],
    ['a zero sample count', base, { JUDGE_OPENAI_SAMPLES: '0' }, 'JUDGE_OPENAI_SAMPLES'],
    ['a bad env concurrency', base, { JUDGE_OPENAI_CONCURRENCY: 'many' }, 'JUDGE_OPENAI_CONCURRENCY'],
  ])('%s → ConfigError naming %s', (_name, raw, env, field) => {
    const error = (() => {
      try {
        parseConfig(raw, env as Record<string, string>);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe(field);
  });

  it('reads the admission queue from the file, each setting replaced by its env variable; defaults otherwise', () => {
    const defaults = { concurrency: 8, queueLength: 64, deadlineMs: 120000 };
    expect(parseConfig({ apiKeys: ['k'], backend: openai }).admission).toEqual(defaults);
    const config = parseConfig(
      { apiKeys: ['k'], backend: openai, admission: { concurrency: 2, queueLength: 0, deadlineMs: 5000 } },
      { JUDGE_ADMISSION_CONCURRENCY: '3' },
    );
    expect(config.admission).toEqual({ concurrency: 3, queueLength: 0, deadlineMs: 5000 });
    expect(parseConfig({ apiKeys: ['k'], backend: openai, limits: { maxSequenceTokens: 8192 } }).limits).toMatchObject({
      maxSequenceTokens: 8192,
      maxInputTokens: 65536,
      maxQuestions: 1000,
    });
  });

  it('loadConfig reads a JSON file and names a broken one', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'judge-config-'));
    const good = path.join(dir, 'judge.json');
    writeFileSync(good, JSON.stringify({ apiKeys: ['k'], backend: openai }));
    expect(loadConfig({ file: good, env: {} }).backend.kind).toBe('openai');
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{ nope');
    expect(() => loadConfig({ file: broken, env: {} })).toThrow(/config file: .*broken.json is not valid JSON/);
    expect(() => loadConfig({ file: path.join(dir, 'missing.json'), env: {} })).toThrow(/cannot read/);
  });
});
