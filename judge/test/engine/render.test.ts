import { describe, expect, it } from 'vitest';
import {
  ANSWER_CUE,
  letterLabel,
  renderOptionGroup,
  renderQuestion,
  renderRequest,
  renderState,
  stableJson,
} from '../../src/engine/render';

describe('state rendering', () => {
  it('is byte-stable: key order does not matter, array order does', () => {
    const a = renderState({ b: 1, a: { d: [3, 1], c: 'x' } });
    const b = renderState({ a: { c: 'x', d: [3, 1] }, b: 1 });
    expect(a).toBe(b);
    expect(renderState({ a: { c: 'x', d: [1, 3] }, b: 1 })).not.toBe(a);
    expect(stableJson(JSON.parse('{"__proto__": {"x": 1}}'))).toBe('{\n  "__proto__": {\n    "x": 1\n  }\n}');
    expect(stableJson({ z: 1, a: [true, null, 'é'] })).toBe(
      '{\n  "a": [\n    true,\n    null,\n    "é"\n  ],\n  "z": 1\n}',
    );
  });

  it('keeps free text as it is and does not depend on the questions', () => {
    const one = renderRequest({ state: 'Ticket: {b} "quoted"', questions: { q: { type: 'noul', instructions: 'x' } } });
    const two = renderRequest({
      state: 'Ticket: {b} "quoted"',
      questions: { other: { type: 'choice', criteria: { a: null } }, more: { type: 'score', criteria: ['l', 'h'] } },
    });
    expect(one.prefix).toBe(two.prefix);
    expect(one.prefix).toContain('Ticket: {b} "quoted"');
    expect(one.prefix.indexOf('Ticket')).toBeLessThan(one.prefix.length);
  });
});

describe('question suffixes', () => {
  it('noul: Yes/No labels, criteria shown, ending in the answer cue', () => {
    const q = renderQuestion('urgent', {
      type: 'noul',
      instructions: 'Is it urgent?',
      criteria: { true: 'needs action today' },
    });
    expect(q.options).toEqual(['true', 'false']);
    expect(q.labels).toEqual(['Yes', 'No']);
    expect(q.suffix).toContain('Is it urgent?');
    expect(q.suffix).toContain('(Yes) needs action today\n(No) no');
    expect(q.suffix.endsWith(ANSWER_CUE)).toBe(true);
    expect(ANSWER_CUE).toBe('Answer: (');
  });

  it('choice: letters in the caller order, descriptions rendered', () => {
    const q = renderQuestion('team', {
      type: 'choice',
      instructions: { ask: 'route' },
      criteria: { billing: 'money', tech: null, legal: { area: 'contracts' } },
    });
    expect(q.options).toEqual(['billing', 'tech', 'legal']);
    expect(q.labels).toEqual(['A', 'B', 'C']);
    expect(q.suffix).toContain('(A) billing: money\n(B) tech\n(C) legal: {\n  "area": "contracts"\n}');
    expect(q.suffix).toContain('{\n  "ask": "route"\n}');
  });

  it('score: digit labels low → high', () => {
    const q = renderQuestion('sev', { type: 'score', criteria: ['none', 'some', 'severe'] });
    expect(q.options).toEqual(['0', '1', '2']);
    expect(q.labels).toEqual(['0', '1', '2']);
    expect(q.suffix).toContain('(0) none\n(1) some\n(2) severe');
  });

  it('is the same for the same question, whatever its neighbours', () => {
    const alone = renderRequest({ state: 's', questions: { q: { type: 'noul', instructions: 'x' } } }).questions[0];
    const together = renderRequest({
      state: 's',
      questions: { p: { type: 'noul', instructions: 'y' }, q: { type: 'noul', instructions: 'x' } },
    }).questions[1];
    expect(together).toEqual(alone);
  });

  it('more than 26 options: spreadsheet labels for display, groups restart at A', () => {
    expect([0, 25, 26, 27, 51, 52, 254].map(letterLabel)).toEqual(['A', 'Z', 'AA', 'AB', 'AZ', 'BA', 'IU']);
    const criteria = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`opt${i}`, null]));
    const q = renderQuestion('many', { type: 'choice', criteria });
    const group = renderOptionGroup(q, [20, 21, 22]);
    expect(group.labels).toEqual(['A', 'B', 'C']);
    expect(group.suffix).toContain('(A) opt20\n(B) opt21\n(C) opt22\n');
    expect(group.suffix).not.toContain('opt19');
    expect(group.suffix.endsWith(ANSWER_CUE)).toBe(true);
  });
});
