// The instance's spending caps as settings: dollars and tokens read as written, "off" for none, a bad value named;
// empty dollars are the default caps (never unlimited), empty tokens no token limit.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_INSTANCE_CAPS_USD,
  describeInstanceCaps,
  instanceCapsFromSettings,
  requireCapTokens,
  requireCapUsd,
} from '../../src/budget/instance-caps';

describe('requireCapUsd and requireCapTokens', () => {
  it('read an amount as written, 0 as a cap of zero, and off (any case) as none', () => {
    expect(['1', ' 0.50 ', '$20', '0', '.25', '1000000'].map((value) => requireCapUsd(value))).toEqual([
      1, 0.5, 20, 0, 0.25, 1_000_000,
    ]);
    expect(requireCapUsd('off')).toBeNull();
    expect(requireCapUsd(' OFF ')).toBeNull();
    expect(requireCapTokens('2000000')).toBe(2_000_000);
    expect(requireCapTokens('2_000_000')).toBe(2_000_000);
    expect(requireCapTokens('0')).toBe(0);
    expect(requireCapTokens('Off')).toBeNull();
  });

  it('name a bad value by its field', () => {
    for (const bad of ['ten', '-1', '1,50', '1e3', '0.0000001', '1000001', 'unlimited', '']) {
      expect(() => requireCapUsd(bad, 'ASSISTANT_BUDGET_DAY_USD'), bad).toThrow(
        /^ASSISTANT_BUDGET_DAY_USD: .* is not an amount in US dollars like 1 or 0\.50 \(at most 1000000\), or off$/,
      );
    }
    for (const bad of ['1.5', '-3', 'lots', '1e6', '10000000000000']) {
      expect(() => requireCapTokens(bad, 'ASSISTANT_BUDGET_DAY_TOKENS'), bad).toThrow(
        /^ASSISTANT_BUDGET_DAY_TOKENS: .* is not a number of tokens/,
      );
    }
  });
});

describe('instanceCapsFromSettings', () => {
  it('gives the default dollar caps and no token limit when nothing is set', () => {
    expect(DEFAULT_INSTANCE_CAPS_USD).toEqual({ day: 1, month: 20 });
    const expected = [
      { period: 'day', limitUsd: 1, limitTokens: null },
      { period: 'month', limitUsd: 20, limitTokens: null },
    ];
    expect(instanceCapsFromSettings({})).toEqual(expected);
    expect(instanceCapsFromSettings({ ASSISTANT_BUDGET_DAY_USD: ' ', ASSISTANT_BUDGET_MONTH_TOKENS: '' })).toEqual(
      expected,
    );
  });

  it('takes each setting, off switching a limit off', () => {
    const caps = instanceCapsFromSettings({
      ASSISTANT_BUDGET_DAY_USD: 'off',
      ASSISTANT_BUDGET_DAY_TOKENS: '500000',
      ASSISTANT_BUDGET_MONTH_USD: '0',
      ASSISTANT_BUDGET_MONTH_TOKENS: 'off',
    });
    expect(caps).toEqual([
      { period: 'day', limitUsd: null, limitTokens: 500_000 },
      { period: 'month', limitUsd: 0, limitTokens: null },
    ]);
    expect(describeInstanceCaps(caps)).toBe('spending caps: day 500000 tokens, month $0');
    expect(
      describeInstanceCaps([
        { period: 'day', limitUsd: 1.5, limitTokens: 1000 },
        { period: 'month', limitUsd: null, limitTokens: null },
      ]),
    ).toBe('spending caps: day $1.5 or 1000 tokens, month off');
  });

  it('names the setting of a bad value', () => {
    expect(() => instanceCapsFromSettings({ ASSISTANT_BUDGET_MONTH_USD: 'twenty' })).toThrow(
      /^ASSISTANT_BUDGET_MONTH_USD: "twenty" is not an amount/,
    );
    expect(() => instanceCapsFromSettings({ ASSISTANT_BUDGET_DAY_TOKENS: '1.5' })).toThrow(
      /^ASSISTANT_BUDGET_DAY_TOKENS: "1.5" is not a number of tokens/,
    );
  });
});
