// The oracle model (logits = a fixed lookup table) gives exact probabilities end to end through the engine;
// plus the ONNX backend's config validation and its state-KV cache.
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JudgeEngine } from '../../src/engine/engine';
import { createOnnxBackend, parseOnnxBackendOptions, type OnnxBackend } from '../../src/backends/onnx';
import { StateKvCache } from '../../src/backends/onnx/kv-cache';
import { generateOracleModelDir } from '../../tools/fixtures/generate-model';
import type { ChoiceAnswer, NoulAnswer, ScoreAnswer } from '../../src/protocol/types';
import { parseConfig } from '../../src/config';
import { generate, tempDir } from './fixtures';

// Logits the oracle gives every label, whatever came before (the table's rows are all alike).
const LABEL_LOGITS: Record<string, number> = { Yes: 1.25, No: -0.75, A: 0.5, B: 2, C: -1, '0': 0, '1': 1, '2': 3 };

describe('oracle model through the engine', () => {
  const tmp = tempDir('onnx-oracle-');
  let backend: OnnxBackend;
  let engine: JudgeEngine;
  let vocabSize = 0;

  beforeAll(async () => {
    const probe = generateOracleModelDir(`${tmp.path}/probe`, () => 0);
    const { Tokenizer } = await import('@huggingface/tokenizers');
    const tok = new Tokenizer(probe.tokenizer.tokenizerJson, probe.tokenizer.tokenizerConfig);
    const byId = new Map<number, number>();
    for (const [label, logit] of Object.entries(LABEL_LOGITS)) {
      const ids = tok.encode(label, { add_special_tokens: false }).ids;
      expect(ids).toHaveLength(1);
      byId.set(ids[0], logit);
    }
    vocabSize = probe.tokenizer.size;
    const { dir } = generateOracleModelDir(`${tmp.path}/oracle`, (_input, output) => byId.get(output) ?? 0);
    backend = await createOnnxBackend({ models: [{ id: 'oracle-2026-11-01', dir }], intraOpNumThreads: 1 });
    engine = new JudgeEngine({ backend, aliases: { 'jev-latest': 'oracle-2026-11-01' } });
  });

  afterAll(async () => {
    await backend?.close();
    tmp.remove();
  });

  const softmax = (logits: number[]) => {
    const w = logits.map(Math.exp);
    const total = w.reduce((a, b) => a + b, 0);
    return w.map((x) => x / total);
  };

  it('answers noul, choice and score with the exact table probabilities', async () => {
    expect(backend.loaded('oracle-2026-11-01').layout).toBe('no-past');
    const { response, coveredMass } = await engine.judge({
      model: 'jev-latest',
      state: { note: 'anything at all' },
      questions: {
        ok: { type: 'noul', instructions: 'Is it fine?' },
        pick: { type: 'choice', criteria: { red: null, green: null, blue: null } },
        level: { type: 'score', criteria: ['low', 'mid', 'high'] },
      },
    });
    expect(response.model).toBe('oracle-2026-11-01');
    const noul = response.answers.ok as NoulAnswer;
    expect(noul.noul).toBeCloseTo(softmax([1.25, -0.75])[0], 12);
    const pick = response.answers.pick as ChoiceAnswer;
    const pickP = softmax([0.5, 2, -1]);
    expect(pick.choice).toBe('green');
    expect(pick.probabilities.red).toBeCloseTo(pickP[0], 12);
    expect(pick.probabilities.green).toBeCloseTo(pickP[1], 12);
    expect(pick.probabilities.blue).toBeCloseTo(pickP[2], 12);
    const level = response.answers.level as ScoreAnswer;
    const levelP = softmax([0, 1, 3]);
    expect(level.score).toBeCloseTo(levelP[1] + 2 * levelP[2], 12);
    // Covered mass: the labels' share of the full-vocabulary softmax (every token outside the table has logit 0).
    const logits = Object.values(LABEL_LOGITS);
    const partition = logits.reduce((sum, l) => sum + Math.exp(l), 0) + (vocabSize - logits.length);
    expect(coveredMass.ok).toBeCloseTo((Math.exp(1.25) + Math.exp(-0.75)) / partition, 6);
    expect(response.usage.input_tokens).toBeGreaterThan(0);
  });
});

describe('ONNX backend config', () => {
  const noDirs = { checkDirs: false };
  const parse = (raw: Record<string, unknown>) => parseOnnxBackendOptions(raw, 'backend', noDirs);

  it('names the exact field of every error', () => {
    expect(() => parse({ kind: 'onnx' })).toThrow(/^backend\.models: /);
    expect(() => parse({ models: [{ dir: '/x' }] })).toThrow(/^backend\.models\[0\]\.id: /);
    expect(() => parse({ models: [{ id: 'a' }] })).toThrow(/^backend\.models\[0\]\.dir: /);
    expect(() =>
      parse({
        models: [
          { id: 'a', dir: '/x' },
          { id: 'a', dir: '/y' },
        ],
      }),
    ).toThrow(/^backend\.models\[1\]\.id: .*twice/);
    expect(() => parse({ models: [{ id: 'a', dir: '/x', releaseDate: 'soon' }] })).toThrow(/releaseDate/);
    expect(() => parse({ models: [{ id: 'a', dir: '/x' }], intraOpNumThreads: -1 })).toThrow(
      /^backend\.intraOpNumThreads: /,
    );
    expect(() => parse({ models: [{ id: 'a', dir: '/x' }], kvCacheBytes: '1GB' })).toThrow(/^backend\.kvCacheBytes: /);
    expect(() => parse({ models: [{ id: 'a', dir: '/x' }], workers: 0 })).toThrow(/^backend\.workers: .*≥ 1/);
    expect(() => parse({ models: [{ id: 'a', dir: '/x' }], threads: 2 })).toThrow(
      /^backend\.threads: is not a setting of the onnx backend/,
    );
    expect(() => parse({ models: [{ id: 'a', dir: '/x', path: '/y' }] })).toThrow(/^backend\.models\[0\]\.path: /);
    expect(parse({ models: [{ id: 'a', dir: '/x' }], intraOpNumThreads: 2, workers: 2 })).toEqual({
      models: [{ id: 'a', dir: '/x', description: undefined, releaseDate: undefined }],
      intraOpNumThreads: 2,
      kvCacheBytes: undefined,
      workers: 2,
    });
  });

  it('refuses, when the config is read, a model directory that is missing or lacks a file', () => {
    const tmp = tempDir('onnx-config-');
    try {
      const { dir } = generate(tmp.path, 'model', { seed: 1, layout: 'plain-past' });
      const config = (models: unknown) => ({ apiKeys: ['k'], backend: { kind: 'onnx', models } });
      expect(parseConfig(config([{ id: 'a', dir }])).backend).toMatchObject({
        kind: 'onnx',
        models: [{ id: 'a', dir }],
      });
      expect(() => parseConfig(config([{ id: 'a', dir: join(tmp.path, 'nowhere') }]))).toThrow(
        /^config backend\.models\[0\]\.dir: .*nowhere is not a directory/,
      );
      unlinkSync(join(dir, 'tokenizer.json'));
      expect(() => parseConfig(config([{ id: 'a', dir }]))).toThrow(
        /^config backend\.models\[0\]\.dir: model directory .* has no tokenizer\.json/,
      );
      expect(() => parseConfig({ ...config([{ id: 'a', dir }]), backend: { kind: 'onnx', models: [] } })).toThrow(
        /^config backend\.models: /,
      );
    } finally {
      tmp.remove();
    }
  });

  it('refuses a model directory without model.onnx, naming the field', async () => {
    const tmp = tempDir('onnx-empty-');
    try {
      await expect(createOnnxBackend({ models: [{ id: 'a', dir: tmp.path }] })).rejects.toThrow(
        /^backend\.models\[0\]\.dir: .*no model\.onnx/,
      );
    } finally {
      tmp.remove();
    }
  });
});

describe('state-KV cache', () => {
  const entry = (bytes: number) => ({
    tokens: 1,
    kv: [
      {
        key: new ort.Tensor('float32', new Float32Array(0), [0]),
        value: new ort.Tensor('float32', new Float32Array(0), [0]),
      },
    ],
    bytes,
  });

  it('evicts the least recently used entries to stay within its byte budget', () => {
    const cache = new StateKvCache(100);
    cache.set('a', entry(40));
    cache.set('b', entry(40));
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('c', entry(40)); // evicts b
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
    expect(cache.usedBytes).toBe(80);
    cache.set('huge', entry(101)); // larger than the whole budget: not kept, nothing evicted
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
