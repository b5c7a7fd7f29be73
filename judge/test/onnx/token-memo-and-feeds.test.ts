// The tokenisation memo (bounded LRU) and the int64 feed writer.
import { describe, expect, it } from 'vitest';
import { TokenMemo } from '../../src/backends/onnx/token-memo';
import { int64Tensor } from '../../src/backends/onnx/tensors';

describe('TokenMemo', () => {
  it('tokenises each (variant, text) once and keeps variants apart', () => {
    const memo = new TokenMemo(1000);
    let calls = 0;
    const tokenize = (text: string) => {
      calls++;
      return [...text].map((c) => c.charCodeAt(0));
    };
    expect(memo.ids('plain', 'abc', tokenize)).toEqual([97, 98, 99]);
    expect(memo.ids('plain', 'abc', tokenize)).toEqual([97, 98, 99]);
    expect(calls).toBe(1);
    memo.ids('special', 'abc', tokenize);
    expect(calls).toBe(2);
    expect(Object.isFrozen(memo.ids('plain', 'abc', tokenize))).toBe(true);
  });

  it('evicts the least recently used texts past its character budget and never keeps a huge text', () => {
    const memo = new TokenMemo(48); // keys are "v\0" + text: 12 characters for a 10-character text, 4 fit
    const tokenize = (text: string) => [text.length];
    for (const c of 'abcd') memo.ids('v', c.repeat(10), tokenize);
    memo.ids('v', 'a'.repeat(10), tokenize); // a is now the most recent
    memo.ids('v', 'e'.repeat(10), tokenize); // evicts b, the least recent
    expect(memo.size).toBe(4);
    let calls = 0;
    const counting = (text: string) => {
      calls++;
      return [text.length];
    };
    memo.ids('v', 'a'.repeat(10), counting);
    expect(calls).toBe(0);
    memo.ids('v', 'b'.repeat(10), counting);
    expect(calls).toBe(1);
    // Over a quarter of the budget: tokenised every time, never kept.
    memo.ids('v', 'x'.repeat(20), counting);
    memo.ids('v', 'x'.repeat(20), counting);
    expect(calls).toBe(3);
  });
});

describe('int64Tensor', () => {
  it('writes small, negative and large whole numbers exactly', () => {
    const values = [0, 1, 31999, -1, -2147483648, 2147483647, 2147483648, 2 ** 40, -(2 ** 40)];
    const tensor = int64Tensor(values, [values.length]);
    expect(Array.from(tensor.data as BigInt64Array)).toEqual(values.map((v) => BigInt(v)));
    expect(tensor.dims).toEqual([values.length]);
  });
});
