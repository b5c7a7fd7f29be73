// The readable content of a page: Readability over linkedom drops navigation, ads, sidebars and footers; turndown
// makes Markdown; links are absolute; a page with too little text and scripts or a noscript message needs JavaScript.
import { describe, expect, it } from 'vitest';

import { extractPage } from '../../src/web/extract';
import { ARTICLE_DROPS, ARTICLE_HTML, ARTICLE_KEEPS, JS_PAGE_HTML } from './fake-site';

describe('extractPage', () => {
  const page = extractPage(ARTICLE_HTML, 'https://news.example/2024/elbe');

  it('keeps the article and drops the navigation, ads, sidebar and footer', () => {
    for (const text of ARTICLE_KEEPS) expect(page.markdown).toContain(text);
    for (const text of ARTICLE_DROPS) expect(page.markdown).not.toContain(text);
    expect(page.needsJavaScript).toBe(false);
  });

  it('writes Markdown with headings, lists and absolute links', () => {
    expect(page.markdown).toMatch(/^## Numbers$/m);
    expect(page.markdown).toMatch(/^- Length: 1,094 km$/m);
    expect(page.markdown).toContain('[the history of the Elbe](https://news.example/elbe/history)');
  });

  it('has the title and the links of the content', () => {
    expect(page.title).toBe('The Elbe, a river of trade');
    expect(page.links).toEqual([
      { text: 'the history of the Elbe', url: 'https://news.example/elbe/history' },
      { text: 'Wikipedia', url: 'https://en.wikipedia.org/wiki/Elbe' },
    ]);
  });

  it('takes a JavaScript shell with a noscript message for a page that needs JavaScript', () => {
    const shell = extractPage(JS_PAGE_HTML, 'https://app.example/');
    expect(shell.needsJavaScript).toBe(true);
    expect(shell.pageTextChars).toBeLessThan(200);
  });

  it('does not take a short page without scripts for one that needs JavaScript', () => {
    const short = extractPage(
      '<html><head><title>Hi</title></head><body><p>Just a short note.</p></body></html>',
      'https://x.example/',
    );
    expect(short.needsJavaScript).toBe(false);
    expect(short.markdown).toBe('Just a short note.');
    expect(short.title).toBe('Hi');
  });

  it('resolves links against <base href>, drops javascript: links and keeps images by their alt text', () => {
    const body = `<p>${'Long enough text for the reader to take this as content. '.repeat(6)}</p>
      <p><a href="page2">next</a> <a href="javascript:void(0)">menu</a> <img src="a.png" alt="A map of the river"></p>`;
    const read = extractPage(
      `<html><head><base href="https://cdn.example/docs/"></head><body><article>${body}</article></body></html>`,
      'https://x.example/',
    );
    expect(read.links).toEqual([{ text: 'next', url: 'https://cdn.example/docs/page2' }]);
    expect(read.markdown).toContain('[image: A map of the river]');
    expect(read.markdown).not.toContain('javascript:');
  });
});
