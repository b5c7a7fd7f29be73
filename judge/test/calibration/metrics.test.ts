// Calibration's parts: the metrics on hand-checked numbers, the temperature fit, the seeded split, the SVG, and
// loading calibration.json through the config (errors name the field).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/calibration/data';
import { fitTemperature, measure, reliabilityBins, withTemperature, type Example } from '../../src/calibration/metrics';
import { reliabilitySvg } from '../../src/calibration/svg';
import { parseConfig } from '../../src/config';

describe('calibration metrics', () => {
  it('ECE, Brier and log loss on numbers checked by hand', () => {
    const examples: Example[] = [
      { type: 'noul', probabilities: [0.9, 0.1], label: 0 },
      { type: 'noul', probabilities: [0.9, 0.1], label: 1 },
      { type: 'choice', probabilities: [0.6, 0.3, 0.1], label: 1 },
      { type: 'choice', probabilities: [0.2, 0.2, 0.6], label: 2 },
    ];
    const m = measure(examples);
    expect(m.n).toBe(4);
    // Brier: (0.01+0.01) + (0.81+0.81) + (0.36+0.49+0.01) + (0.04+0.04+0.16) = 2.74 → /4.
    expect(m.brier).toBeCloseTo(2.74 / 4, 12);
    expect(m.logLoss).toBeCloseTo(-(Math.log(0.9) + Math.log(0.1) + Math.log(0.3) + Math.log(0.6)) / 4, 12);
    // Bins: 0.9 (two answers, one right) → |0.5 − 0.9|; 0.6 (two answers, one right) → |0.5 − 0.6|.
    expect(m.ece).toBeCloseTo((2 / 4) * 0.4 + (2 / 4) * 0.1, 12);
    const bins = reliabilityBins(examples);
    expect(bins.map((b) => b.count)).toEqual([0, 0, 0, 0, 0, 0, 2, 0, 0, 2]);
    expect(measure([]).n).toBe(0);
  });

  it('temperature: T = 1 is the identity, T > 1 flattens, T < 1 sharpens', () => {
    expect(withTemperature([0.7, 0.3], 1)).toEqual([0.7, 0.3]);
    expect(withTemperature([0.7, 0.3], 2)[0]).toBeCloseTo(Math.sqrt(0.7) / (Math.sqrt(0.7) + Math.sqrt(0.3)), 12);
    expect(withTemperature([0.7, 0.3], 0.5)[0]).toBeCloseTo(0.49 / 0.58, 12);
  });

  it('fits the temperature that undoes a known sharpening, on exact label frequencies', () => {
    // p = (0.7, 0.3) asked 10 times, 7 yes and 3 no; the model says p^3 normalised → T = 3.
    const q = withTemperature([0.7, 0.3], 1 / 3);
    const examples: Example[] = Array.from({ length: 10 }, (_, i) => ({
      type: 'noul',
      probabilities: q,
      label: i < 7 ? 0 : 1,
    }));
    expect(fitTemperature(examples)).toBeCloseTo(3, 5);
    expect(fitTemperature([])).toBe(1);
  });

  it('splits lines deterministically by seed', () => {
    const a = splitLines(50, 0.2, 3);
    expect(a.holdout).toHaveLength(10);
    expect(a.train).toHaveLength(40);
    expect([...a.train, ...a.holdout].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(splitLines(50, 0.2, 3)).toEqual(a);
    expect(splitLines(50, 0.2, 4).holdout).not.toEqual(a.holdout);
    expect(splitLines(50, 0, 3).holdout).toEqual([]);
  });

  it('draws one reliability panel per type', () => {
    const bins = reliabilityBins([{ type: 'score', probabilities: [0.2, 0.8], label: 1 }]);
    const svg = reliabilitySvg(
      [{ type: 'score', temperature: 1.5, split: 'train', before: bins, after: bins, eceBefore: 0.2, eceAfter: 0.2 }],
      'Reliability: a <file>',
    );
    expect(svg).toContain('score  T = 1.50');
    expect(svg).toContain('Reliability: a &lt;file&gt;');
    expect(svg.match(/<circle/g)).toHaveLength(4); // 2 legend dots + before + after
  });
});

describe('calibration in the config', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'judge-calibration-config-'));
  const base = { apiKeys: ['k'], backend: { kind: 'remote', baseUrl: 'http://x', apiKey: 'r' } };
  const write = (name: string, content: unknown) => {
    const file = path.join(dir, name);
    writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
    return file;
  };
  const good = write('good.json', {
    kind: 'systemone-judge-calibration',
    version: 1,
    models: ['m-1'],
    temperatures: { noul: 1.8, score: 0.9 },
  });

  it('applies the temperatures of `calibration` (or JUDGE_CALIBRATION; "" turns it off)', () => {
    const config = parseConfig({ ...base, calibration: good, temperatures: { choice: 1.2 } });
    expect(config.temperatures).toEqual({ noul: 1.8, score: 0.9, choice: 1.2 });
    expect(config.calibration).toEqual({ path: good, temperatures: { noul: 1.8, score: 0.9 }, models: ['m-1'] });
    expect(parseConfig(base, { JUDGE_CALIBRATION: good }).temperatures).toEqual({ noul: 1.8, score: 0.9 });
    expect(parseConfig({ ...base, calibration: good }, { JUDGE_CALIBRATION: '' }).calibration).toBeUndefined();
  });

  it.each([
    ['a missing file', path.join(dir, 'missing.json'), 'config calibration: cannot load'],
    ['not JSON', write('text.json', 'nope'), 'config calibration: cannot load'],
    ['another kind of file', write('other.json', { temperatures: { noul: 1 } }), 'is not a calibration file'],
    [
      'a bad temperature',
      write('bad-t.json', { kind: 'systemone-judge-calibration', version: 1, temperatures: { noul: -1 } }),
      'config calibration.temperatures.noul: must be a number > 0, got -1',
    ],
    [
      'an unknown type',
      write('bad-type.json', { kind: 'systemone-judge-calibration', version: 1, temperatures: { yesno: 1 } }),
      'config calibration.temperatures.yesno: must be noul, choice or score',
    ],
    ['not a path', 42, 'config calibration: must be the path of a calibration.json'],
  ])('refuses %s, naming the field', (_name, calibration, message) => {
    expect(() => parseConfig({ ...base, calibration })).toThrow(message);
  });

  it('refuses a type set both in temperatures and by the calibration', () => {
    expect(() => parseConfig({ ...base, calibration: good, temperatures: { noul: 1 } })).toThrow(
      `config temperatures.noul: is also set by the calibration file ${good}; keep one of them`,
    );
  });
});
