// The URL helpers: absolute http(s) links, and the de-duplication key of search results.
import { describe, expect, it } from 'vitest';

import { absoluteHttpUrl, urlKey } from '../../src/web/urls';

describe('absoluteHttpUrl', () => {
  it('resolves relative links and drops fragments', () => {
    expect(absoluteHttpUrl('../b?x=1#top', 'https://a.example/docs/page')).toBe('https://a.example/b?x=1');
    expect(absoluteHttpUrl('//cdn.example/i.png', 'http://a.example/')).toBe('http://cdn.example/i.png');
  });
  it('gives nothing for other schemes, empty or broken links', () => {
    for (const href of ['mailto:a@b.example', 'javascript:alert(1)', '', null, 'http://[broken']) {
      expect(absoluteHttpUrl(href, 'https://a.example/')).toBeUndefined();
    }
  });
});

describe('urlKey', () => {
  it('is one key for the same page written differently', () => {
    const keys = [
      'https://en.wikipedia.org/wiki/Elbe',
      'http://www.en.wikipedia.org/wiki/Elbe/',
      'https://EN.wikipedia.org:443/wiki/Elbe#History',
      'https://en.wikipedia.org/wiki/Elbe?utm_source=ddg&utm_medium=x',
    ].map(urlKey);
    expect(new Set(keys).size).toBe(1);
  });
  it('keeps what changes the page: the path, the query (sorted), a port', () => {
    expect(urlKey('https://a.example/p?b=2&a=1')).toBe(urlKey('https://a.example/p?a=1&b=2'));
    expect(urlKey('https://a.example/p?a=1')).not.toBe(urlKey('https://a.example/p?a=2'));
    expect(urlKey('https://a.example/p')).not.toBe(urlKey('https://a.example/q'));
    expect(urlKey('https://a.example:8443/p')).not.toBe(urlKey('https://a.example/p'));
  });
});
