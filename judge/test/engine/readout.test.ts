import { describe, expect, it } from 'vitest';
import { DEFAULT_ALIAS, defaultAliases, JudgeEngine } from '../../src/engine/engine';
import { choiceConfidence, readOut, scoreConfidence, toProbabilities } from '../../src/engine/readout';
import { renderQuestion } from '../../src/engine/render';
import { ApiError } from '../../src/protocol/errors';
import type { ChoiceAnswer, NoulAnswer, ScoreAnswer } from '../../src/protocol/types';
import { EXACT_MODEL, ExactBackend } from '../helpers/exact-backend';

const close = (a: number, b: number) => expect(a).toBeCloseTo(b, 12);

describe('confidence formulas', () => {
  it('choice: (n·p_max − 1)/(n − 1)', () => {
    close(choiceConfidence([0.6, 0.3, 0.1]), 0.4);
    close(choiceConfidence([1 / 3, 1 / 3, 1 / 3]), 0);
    close(choiceConfidence([1, 0]), 1);
    close(choiceConfidence([1]), 1);
  });

  it('score: 1 − E|i − m| / E_uniform|i − (n−1)/2|, clamped', () => {
    // n = 3: E_uniform = (1 + 0 + 1)/3 = 2/3. p = [0.2, 0.5, 0.3], m = 1: E = 0.2 + 0.3 = 0.5 → 1 − 0.75 = 0.25.
    close(scoreConfidence([0.2, 0.5, 0.3]), 0.25);
    close(scoreConfidence([0, 1, 0]), 1);
    // Ties pick the lowest level: m = 0, E = 0.5·1 = 0.5, E_uniform(n=2) = 0.5 → 0.
    close(scoreConfidence([0.5, 0.5]), 0);
    // Mass far from the mode clamps at 0: n = 5, p = [0.3, 0, 0, 0, 0.7]? m = 4, E = 0.3·4 = 1.2 > E_uniform 1.2 → 0.
    close(scoreConfidence([0.3, 0, 0, 0, 0.7]), 0);
    expect(scoreConfidence([0.34, 0, 0, 0, 0.33, 0.33])).toBe(0);
  });
});

describe('readOut', () => {
  it('temperature sharpens or flattens per type', () => {
    const q = renderQuestion('n', { type: 'noul', instructions: 'x' });
    const lp = [Math.log(0.8), Math.log(0.2)];
    close((readOut(q, lp) as NoulAnswer).noul, 0.8);
    close((readOut(q, lp, { noul: 2 }) as NoulAnswer).noul, Math.sqrt(0.8) / (Math.sqrt(0.8) + Math.sqrt(0.2)));
    close((readOut(q, lp, { choice: 2 }) as NoulAnswer).noul, 0.8);
    expect(() => toProbabilities([0, 0], 0)).toThrow(/temperature/);
  });
});

describe('engine with exact probabilities', () => {
  const probabilities: Record<string, number[]> = {
    yes: [0.7, 0.3],
    team: [0.6, 0.3, 0.1],
    severity: [0.2, 0.5, 0.3],
    solo: [1],
  };
  const engine = new JudgeEngine({
    backend: new ExactBackend((q) => probabilities[q.name]),
    aliases: { 'jev-latest': EXACT_MODEL.id },
  });

  it('reads out noul, choice and score with Jev formulas', async () => {
    const { response } = await engine.judge({
      model: 'jev-latest',
      state: { ticket: 'x' },
      questions: {
        yes: { type: 'noul', instructions: 'Is it?' },
        team: { type: 'choice', criteria: { billing: null, tech: 'tech issues', legal: null } },
        severity: { type: 'score', criteria: ['low', { level: 'mid' }, 'high'] },
        solo: { type: 'choice', criteria: { only: null } },
      },
    });
    expect(response.model).toBe(EXACT_MODEL.id);
    close((response.answers.yes as NoulAnswer).noul, 0.7);
    const team = response.answers.team as ChoiceAnswer;
    expect(team.choice).toBe('billing');
    expect(Object.keys(team.probabilities)).toEqual(['billing', 'tech', 'legal']);
    close(team.probabilities.tech, 0.3);
    close(team.confidence, 0.4);
    const severity = response.answers.severity as ScoreAnswer;
    close(severity.score, 0.5 + 0.6);
    expect(severity.legend).toEqual({ '0': 'low', '1': { level: 'mid' }, '2': 'high' });
    close(severity.confidence, 0.25);
    const solo = response.answers.solo as ChoiceAnswer;
    expect(solo).toEqual({ type: 'choice', choice: 'only', probabilities: { only: 1 }, confidence: 1 });
    expect(response.usage.output_tokens).toBe(0);
    expect(response.usage.input_tokens).toBeGreaterThan(0);
  });

  it('unknown model → 400 naming the available ones', async () => {
    const error = await engine
      .judge({ model: 'gpt-9', state: 's', questions: { yes: { type: 'noul', instructions: 'x' } } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(400);
    expect(error.detail).toMatch(/Unknown model "gpt-9".*exact-2026-01-01.*jev-latest/);
  });

  it('over the token budget → 400 max_tokens_exceeded', async () => {
    const small = new JudgeEngine({ backend: new ExactBackend(() => [0.5, 0.5]), limits: { maxInputTokens: 50 } });
    const error = await small
      .judge({ model: EXACT_MODEL.id, state: 'x'.repeat(400), questions: { q: { type: 'noul', instructions: 'x' } } })
      .catch((e) => e);
    expect(error.status).toBe(400);
    expect(error.errorType).toBe('max_tokens_exceeded');
  });

  it('refuses an alias that points nowhere', () => {
    expect(() => new JudgeEngine({ backend: new ExactBackend(() => []), aliases: { 'jev-latest': 'nope' } })).toThrow(
      /alias "jev-latest"/,
    );
  });

  it('maps jev-latest and <name>-latest without configuration; configured aliases add to that', () => {
    const plain = new JudgeEngine({ backend: new ExactBackend(() => []) });
    expect(DEFAULT_ALIAS).toBe('jev-latest');
    expect(plain.resolveModel('jev-latest')).toBe(EXACT_MODEL.id);
    expect(plain.resolveModel('exact-latest')).toBe(EXACT_MODEL.id);
    expect(plain.listModels().map((m) => m.name)).toEqual([EXACT_MODEL.id, 'exact-latest', 'jev-latest']);
    const configured = new JudgeEngine({ backend: new ExactBackend(() => []), aliases: { stable: EXACT_MODEL.id } });
    expect(configured.resolveModel('stable')).toBe(EXACT_MODEL.id);
    expect(configured.resolveModel('jev-latest')).toBe(EXACT_MODEL.id);
    expect(defaultAliases([])).toEqual({});
  });
});
