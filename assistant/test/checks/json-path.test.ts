// JSON paths: dots and brackets, quoted keys, and where a missing value stops.
import { describe, expect, it } from 'vitest';
import { AssistantInputError } from '../../src/errors';
import { parseJsonPath, valueAtPath } from '../../src/checks';

describe('JSON paths', () => {
  it('reads dots, indexes, $ and quoted keys', () => {
    expect(parseJsonPath('$.data.items[0].price')).toEqual(['data', 'items', 0, 'price']);
    expect(parseJsonPath('["odd key"][2][\'x\']')).toEqual(['odd key', 2, 'x']);
    const doc = { data: { items: [{ price: 49.5 }], 'odd key': null } };
    expect(valueAtPath(doc, 'data.items[0].price')).toEqual({ found: true, value: 49.5 });
    expect(valueAtPath(doc, 'data["odd key"]')).toEqual({ found: true, value: null });
    expect(valueAtPath(doc, 'data.items[3].price')).toEqual({ found: false, at: 'data.items[3]' });
    expect(valueAtPath(doc, 'data.price.amount')).toEqual({ found: false, at: 'data.price' });
  });

  it('refuses a path it cannot read, naming the field', () => {
    for (const bad of ['', 'a..b', 'a[x]', 'a b']) {
      expect(() => parseJsonPath(bad)).toThrow(AssistantInputError);
    }
    expect(() => parseJsonPath('a[x]')).toThrow(/^path: /);
  });
});
