// The write gate's text rules: words and near-duplicates, the subject a fact is about, and change words.
import { describe, expect, it } from 'vitest';
import {
  contentKey,
  DUPLICATE_WORD_OVERLAP,
  embeddingDuplicate,
  factSubject,
  factWords,
  saysChange,
  subjectKey,
  textDuplicate,
  wordOverlap,
} from '../../src/memory/gate-text';

describe('gate text rules', () => {
  it('ignores case, punctuation, spacing and word order', () => {
    expect(contentKey('Stefan Huber is my accountant.')).toBe(contentKey('my  ACCOUNTANT is: stefan huber'));
    expect(factWords('Anna’s number: +43 660!')).toEqual(['43', '660', 'anna', 'number', 's']);
    expect(wordOverlap(['a', 'b'], ['b', 'a'])).toBe(1);
    expect(wordOverlap(['a', 'b'], ['c'])).toBe(0);
  });

  it(`calls facts near-duplicates at a word overlap of ${DUPLICATE_WORD_OVERLAP} with the same numbers`, () => {
    const words = factWords('I drink my coffee black every single morning');
    expect(textDuplicate(words, factWords('Every single morning I drink my coffee black!'))).toBe(1);
    // 8 of 9 words shared
    expect(textDuplicate(words, factWords('I drink my coffee black every single morning, always'))).toBeCloseTo(8 / 9);
    expect(textDuplicate(words, factWords('I drink tea'))).toBeNull();
    // a different number is never a duplicate, however alike the rest
    const phone = factWords("Anna's number is +43 660 1234567");
    expect(textDuplicate(phone, factWords("Anna's number is +43 660 1234568"))).toBeNull();
    expect(embeddingDuplicate(phone, factWords("Anna's number is +43 660 1234568"), 0.99)).toBe(false);
    expect(embeddingDuplicate(factWords('I cycle'), factWords('I ride a bike'), 0.95)).toBe(true);
    expect(embeddingDuplicate(factWords('I cycle'), factWords('I ride a bike'), 0.5)).toBe(false);
  });

  it('finds the subject of a fact, or takes the stated one', () => {
    const cases: Array<[string, string | null]> = [
      ['Stefan Huber from Huber & Partner is my accountant', 'my accountant'],
      ['Anna Berger replaces Stefan as my accountant from March', 'my accountant'],
      ['My accountant is now Anna Berger', 'my accountant'],
      ['Anna Berger is my new accountant.', 'my accountant'],
      ['my tax advisor is Stefan', 'my tax advisor'],
      ["Anna's number is +43 660 1234567", "anna's number"],
      ['Anna Berger’s email is anna@example.com', "anna berger's email"],
      ['I like green tea', null],
    ];
    for (const [text, subject] of cases) expect(factSubject(text), text).toBe(subject);
    expect(factSubject('I like green tea', '  My  Favourite DRINK ')).toBe('my favourite drink');
    expect(subjectKey('  ')).toBeNull();
  });

  it('knows the words that say a fact changes an earlier one', () => {
    for (const text of [
      'My accountant is now Anna',
      'Anna Berger replaces Stefan as my accountant',
      'I no longer work at Acme',
      'Anna is my new accountant',
      'Mein Steuerberater ist jetzt Anna',
    ])
      expect(saysChange(text), text).toBe(true);
    for (const text of ['Stefan Huber is my accountant', 'Anna knows the news', 'I know Anna'])
      expect(saysChange(text), text).toBe(false);
  });
});
