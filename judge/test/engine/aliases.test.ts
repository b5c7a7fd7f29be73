// Moving model names: `<name>-latest` → the newest pinned id of that name, jev-latest → the first model when no
// jev-<version> model is served, configured aliases on top; all without configuration.
import { describe, expect, it } from 'vitest';
import type { Backend, ModelDescriptor } from '../../src/engine/backend';
import { compareVersions, defaultAliases, JudgeEngine, parseModelId } from '../../src/engine/engine';
import { ExactBackend } from '../helpers/exact-backend';

const model = (id: string): ModelDescriptor => ({ id, description: `model ${id}`, releaseDate: '2026-01-01' });

function engineServing(ids: string[], aliases?: Record<string, string>): JudgeEngine {
  const exact = new ExactBackend(() => []);
  const backend: Backend = {
    ...exact,
    kind: 'exact',
    models: () => ids.map(model),
    countTokens: () => 1,
    score: (j) => exact.score(j),
  };
  return new JudgeEngine({ backend, aliases });
}

describe('parseModelId', () => {
  it.each([
    ['judge-openai-2026-11-01', 'judge-openai', [2026, 11, 1]],
    ['judge-openai-gpt-4.1-mini-2026-11-01', 'judge-openai-gpt-4.1-mini', [2026, 11, 1]],
    ['gpt-4-2026-11-01', 'gpt-4', [2026, 11, 1]],
    ['judge-onnx-20261101', 'judge-onnx', [2026, 11, 1]],
    ['jev-1.13.0', 'jev', [1, 13, 0]],
    ['jev-2', 'jev', [2]],
    ['local-v2.0.1', 'local', [2, 0, 1]],
  ])('%s → %s %j', (id, name, version) => {
    expect(parseModelId(id)).toEqual({ name, version });
  });

  it.each(['jev-latest', 'judge-openai-qwen2.5:7b', 'model', '2026-11-01', 'x-2026-13-01-beta'])(
    '%s has no version',
    (id) => {
      expect(parseModelId(id)).toBeUndefined();
    },
  );

  it('compares versions number by number, missing parts as 0', () => {
    expect(compareVersions([1, 13, 0], [1, 9, 9])).toBeGreaterThan(0);
    expect(compareVersions([1, 2], [1, 2, 0])).toBe(0);
    expect(compareVersions([2026, 1, 2], [2026, 1, 10])).toBeLessThan(0);
  });
});

describe('<name>-latest and jev-latest', () => {
  it('resolves <name>-latest to the newest date, whatever the order served', () => {
    const engine = engineServing(['judge-openai-2026-11-01', 'judge-openai-2027-02-03', 'judge-openai-2026-12-31']);
    expect(engine.resolveModel('judge-openai-latest')).toBe('judge-openai-2027-02-03');
    // No jev-<version> model: jev-latest is the first model, as before.
    expect(engine.resolveModel('jev-latest')).toBe('judge-openai-2026-11-01');
    expect(engine.resolveModel('judge-openai-2026-11-01')).toBe('judge-openai-2026-11-01');
  });

  it('compares release numbers as numbers (1.13 is newer than 1.9), per name', () => {
    const engine = engineServing(['small-2026-01-01', 'jev-1.9.0', 'jev-1.13.0', 'jev-1.13', 'small-2025-12-31']);
    expect(engine.resolveModel('jev-latest')).toBe('jev-1.13.0'); // a tie keeps the one listed first
    expect(engine.resolveModel('small-latest')).toBe('small-2026-01-01');
    expect(engine.listModels().map((m) => m.name)).toEqual([
      'small-2026-01-01',
      'jev-1.9.0',
      'jev-1.13.0',
      'jev-1.13',
      'small-2025-12-31',
      'small-latest',
      'jev-latest',
    ]);
    expect(engine.listModels().find((m) => m.name === 'jev-latest')?.description).toBe(
      'Alias of jev-1.13.0: model jev-1.13.0',
    );
  });

  it('never shadows a model the backend serves under that name (a provider listing its own jev-latest)', () => {
    expect(defaultAliases([model('jev-latest'), model('jev-1.13.0')])).toEqual({});
    expect(engineServing(['jev-latest', 'jev-1.13.0']).resolveModel('jev-latest')).toBe('jev-latest');
  });

  it('configured aliases come on top of (and override) the default ones', () => {
    const engine = engineServing(['m-2026-01-01', 'm-2026-02-01'], {
      'm-latest': 'm-2026-01-01',
      stable: 'm-2026-02-01',
    });
    expect(engine.resolveModel('m-latest')).toBe('m-2026-01-01');
    expect(engine.resolveModel('stable')).toBe('m-2026-02-01');
    expect(engine.resolveModel('jev-latest')).toBe('m-2026-01-01');
  });

  it('an unknown <name>-latest is a 400 invalid_model naming what is served', () => {
    const engine = engineServing(['m-2026-01-01']);
    expect(() => engine.resolveModel('other-latest')).toThrow(
      /Unknown model "other-latest".*m-2026-01-01, m-latest, jev-latest/,
    );
    expect(() => engine.resolveModel('__proto__')).toThrow(/Unknown model "__proto__"/);
  });
});
