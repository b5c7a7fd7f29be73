// The web chat's Markdown: hostile text stays text (no tag, attribute or script URL survives), links are http(s)
// only with rel="noopener noreferrer", and the small subset the assistant writes renders.
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/server/console/markdown';

/** The tags a rendering may contain: the renderer's own. */
const OWN_TAGS = new Set(['p', 'br', 'ul', 'ol', 'li', 'pre', 'code', 'strong', 'em', 'a']);
const tagsOf = (html: string) => [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((match) => match[1].toLowerCase());

describe('renderMarkdown', () => {
  const hostile = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<a href="javascript:alert(1)">click</a>',
    '[click](javascript:alert(1))',
    '[click](https://example.com/"onmouseover="alert(1))',
    '[x](data:text/html;base64,PHNjcmlwdD4=)',
    '**<b onclick="x()">bold</b>**',
    '`<script>`',
    '```\n</code></pre><script>alert(1)</script>\n```',
    '<svg/onload=alert(1)>',
    '<iframe srcdoc="<script>alert(1)</script>">',
    '\' " & < >',
  ];

  it.each(hostile)('keeps %j harmless: only its own tags, every < escaped', (text) => {
    const html = renderMarkdown(text);
    for (const tag of tagsOf(html)) expect(OWN_TAGS.has(tag), `${tag} in ${html}`).toBe(true);
    expect(html).not.toMatch(/<(script|img|svg|iframe|b)\b/i);
    expect(html).not.toMatch(/href="(?!https?:)/);
    // No event handler inside any tag (as text it is harmless: "onerror=" shown to the reader).
    for (const tag of html.match(/<[^>]*>/g) ?? []) expect(tag).not.toMatch(/\son\w+=/i);
  });

  it('a script stays visible as text', () => {
    expect(renderMarkdown('<script>alert(1)</script>')).toBe('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  });

  it('links: http(s) only, with rel="noopener noreferrer" in a new tab; a quote cannot leave the attribute', () => {
    expect(renderMarkdown('see [the docs](https://example.com/a?b=1&c=2)')).toBe(
      '<p>see <a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">the docs</a></p>',
    );
    expect(renderMarkdown('[x](javascript:alert(1))')).toBe('<p>[x](javascript:alert(1))</p>');
    const quoted = renderMarkdown('[x](https://e.com/"onmouseover="alert(1))');
    expect(quoted).toContain('href="https://e.com/&quot;onmouseover=&quot;alert(1"');
  });

  it('renders paragraphs, line breaks, lists, headings, code, bold and italic', () => {
    expect(renderMarkdown('# Plan\nFirst line\nsecond *line*\n\n- one\n- **two**\n\n1. a\n2. `b <c>`')).toBe(
      '<p><strong>Plan</strong></p><p>First line<br>second <em>line</em></p>' +
        '<ul><li>one</li><li><strong>two</strong></li></ul><ol><li>a</li><li><code>b &lt;c&gt;</code></li></ol>',
    );
    expect(renderMarkdown('```js\nif (a < b) {}\n```')).toBe('<pre><code>if (a &lt; b) {}</code></pre>');
  });
});
