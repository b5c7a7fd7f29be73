// The browser page as the model reads it: title, URL, text, numbered elements with their values and options.
import { describe, expect, it } from 'vitest';
import { describePage } from '../../src/browser/page-text';
import type { SessionPage } from '../../src/browser/protocol';

const page: SessionPage = {
  url: 'https://shop.example/login',
  title: 'Sign in',
  text: 'Sign in to the shop',
  truncated: true,
  elements: [
    { ref: 1, role: 'textbox', name: 'Email', value: 'me@example.com' },
    { ref: 2, role: 'password', name: 'Password', value: '[hidden]' },
    { ref: 3, role: 'combobox', name: 'Country', options: ['Austria', 'Germany'], value: 'Austria' },
    { ref: 4, role: 'checkbox', name: 'Remember me', checked: false },
    { ref: 5, role: 'button', name: 'Sign in', disabled: true },
  ],
  codeField: null,
  task: { pages: 2, maxPages: 30, activeMs: 12_400, maxActiveMs: 300_000, codesTyped: 0 },
  refused: { count: 1, examples: ['x'] },
};

describe('page text', () => {
  it('lists what the model needs to act', () => {
    const text = describePage(page);
    expect(text).toContain(
      'Page: Sign in\nURL: https://shop.example/login\n\nSign in to the shop\n(the text was cut off here)',
    );
    expect(text).toContain('[1] textbox "Email" = "me@example.com"');
    expect(text).toContain('[2] password "Password" = "[hidden]"');
    expect(text).toContain('[3] combobox "Country" = "Austria" options: "Austria", "Germany"');
    expect(text).toContain('[4] checkbox "Remember me" (not checked)');
    expect(text).toContain('[5] button "Sign in" (disabled)');
    expect(text).toContain('1 request(s) of this page were refused');
    expect(text).toContain('Task: 2/30 pages, 12/300 s used.');
  });

  it('says when there is nothing to act on', () => {
    expect(
      describePage({ ...page, elements: [], text: '', truncated: false, refused: { count: 0, examples: [] } }),
    ).toContain('(no text)\n\nNo elements to act on.');
  });
});
