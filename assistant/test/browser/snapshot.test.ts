// Secrets typed in a task never come back in a snapshot: in the text, a field, the title, or the URL (a form sent by
// GET, percent- or form-encoded).
import { describe, expect, it } from 'vitest';

import { redactSecrets, type PageSnapshot } from '../../src/browser/snapshot';

describe('redactSecrets', () => {
  it('hides every secret wherever the page shows it again', () => {
    const snapshot: PageSnapshot = {
      url: 'https://bank.example/login?user=ada&password=open+sesame+42&again=open%20sesame%2042',
      title: 'open sesame 42',
      text: 'Your password open sesame 42 is weak; code 123456',
      truncated: false,
      elements: [
        { ref: 1, role: 'textbox', name: 'Note', value: 'open sesame 42!' },
        { ref: 2, role: 'combobox', name: 'Pick', value: 'a', options: ['a', '123456'] },
      ],
      codeField: { ref: 1, name: 'Note' },
    };
    const clean = redactSecrets(snapshot, ['open sesame 42', '123456', 'ab']);
    expect(clean).toEqual({
      url: 'https://bank.example/login?user=ada&password=[hidden]&again=[hidden]',
      title: '[hidden]',
      text: 'Your password [hidden] is weak; code [hidden]',
      truncated: false,
      elements: [
        { ref: 1, role: 'textbox', name: 'Note', value: '[hidden]!' },
        { ref: 2, role: 'combobox', name: 'Pick', value: 'a', options: ['a', '[hidden]'] },
      ],
      codeField: { ref: 1, name: 'Note' },
    });
    expect(redactSecrets(snapshot, [])).toBe(snapshot);
  });
});
