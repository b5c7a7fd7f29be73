// What a check watches, read from add_check's input: the kind from the input's shape, and a sentence naming the
// field for everything that cannot be watched.
import { describe, expect, it } from 'vitest';
import { AssistantInputError } from '../../src/errors';
import { describeCheckTarget, readCheckDefinition, type CheckDefinitionInput } from '../../src/checks';

function refusal(input: CheckDefinitionInput): AssistantInputError {
  try {
    readCheckDefinition(input);
  } catch (error) {
    if (error instanceof AssistantInputError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('readCheckDefinition', () => {
  it('reads a URL as a page, a URL with a path as JSON, a feed by kind, and other text as a search', () => {
    expect(readCheckDefinition({ what: ' https://example.com/news ' })).toMatchObject({
      kind: 'page',
      target: 'https://example.com/news',
      condition: 'changed',
      notifyWhen: null,
      notifyThreshold: 0.5,
    });
    expect(
      readCheckDefinition({
        what: 'the price',
        url: 'https://shop.test/api',
        path: 'data.price',
        condition: 'Below',
        threshold: '50',
      }),
    ).toMatchObject({
      kind: 'json',
      target: 'https://shop.test/api',
      path: 'data.price',
      condition: 'below',
      threshold: 50,
    });
    expect(readCheckDefinition({ what: 'https://blog.test/feed.xml', kind: 'feed' }).kind).toBe('feed');
    expect(
      readCheckDefinition({ what: 'n8n release notes', notifyWhen: 'only major versions', notifyThreshold: '0.7' }),
    ).toMatchObject({
      kind: 'search',
      target: 'n8n release notes',
      notifyWhen: 'only major versions',
      notifyThreshold: 0.7,
    });
    expect(readCheckDefinition({ what: 'https://example.com/', selector: '#price' }).selector).toBe('#price');
  });

  it('refuses what cannot be watched, naming the field', () => {
    expect(refusal({ what: 'ftp://example.com/file' }).field).toBe('what');
    expect(refusal({ what: 'file:///etc/passwd' }).message).toContain('only http and https');
    expect(refusal({ what: 'x', url: 'not a url' }).field).toBe('url');
    expect(refusal({ what: 'prices', kind: 'feed' }).message).toContain('needs the http(s) URL');
    expect(refusal({ what: 'https://x.test/a', kind: 'json' }).field).toBe('path');
    expect(refusal({ what: 'https://x.test/a', path: 'a..b' }).field).toBe('path');
    expect(refusal({ what: 'https://x.test/a', path: 'price', condition: 'above' }).field).toBe('threshold');
    expect(refusal({ what: 'https://x.test/a', condition: 'above', threshold: 3 }).field).toBe('condition');
    expect(refusal({ what: 'https://x.test/a', threshold: 3 }).field).toBe('threshold');
    expect(refusal({ what: 'https://x.test/a', path: 'p', threshold: 'lots', condition: 'above' }).field).toBe(
      'threshold',
    );
    expect(refusal({ what: 'https://x.test/a', kind: 'rss' }).message).toContain('page, feed, search, json');
    expect(refusal({ what: 'q', selector: 'p' }).field).toBe('selector');
    expect(refusal({ what: 'q', notifyWhen: 'x', notifyThreshold: 1.5 }).field).toBe('notify_threshold');
    expect(refusal({ what: '' }).field).toBe('what');
  });

  it('describes a check in words', () => {
    expect(
      describeCheckTarget(
        readCheckDefinition({ what: 'https://x.test/api', path: 'a.b', condition: 'above', threshold: 5 }),
      ),
    ).toBe('a.b at https://x.test/api, when it goes above 5');
    expect(describeCheckTarget(readCheckDefinition({ what: 'new n8n nodes' }))).toBe('new results for "new n8n nodes"');
  });
});
