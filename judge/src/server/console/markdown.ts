// The assistant's Markdown as safe HTML for the web chat: everything escaped first, then a small subset made into
// tags the renderer writes itself (paragraphs, line breaks, - and 1. lists, # headings, ``` blocks, `code`,
// **bold**, *italic*, and [links](http(s) only) with rel="noopener noreferrer" opening in a new tab). No HTML from
// the text ever survives: a <script> is shown as text, a javascript: link stays text.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

/** Inline Markdown of one escaped line: code first (its content stays literal), then links, bold, italic. */
function inline(escaped: string): string {
  const codes: string[] = [];
  let text = escaped.replace(/`([^`]+)`/g, (_match, code: string) => {
    codes.push(`<code>${code}</code>`);
    return `\u0000${codes.length - 1}\u0000`;
  });
  // The URL was escaped with the text, so it holds no quote or angle bracket; only http(s) becomes a link.
  text = text.replace(
    /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g,
    (_match, label: string, url: string) => `<a href="${url}" rel="noopener noreferrer" target="_blank">${label}</a>`,
  );
  text = text.replace(/\*\*([^*\n]+)\*\*/g, '<strong>$1</strong>');
  text = text.replace(/(^|[\s(])\*([^*\n]+)\*(?=[\s).,!?:;]|$)/g, '$1<em>$2</em>');
  return text.replace(/\u0000(\d+)\u0000/g, (_match, index: string) => codes[Number(index)]);
}

type Block =
  { kind: 'code'; lines: string[] } | { kind: 'ul' | 'ol' | 'p'; lines: string[] } | { kind: 'h'; text: string };

function blocks(text: string): Block[] {
  const out: Block[] = [];
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const body: string[] = [];
      for (i++; i < lines.length && !/^```/.test(lines[i]); i++) body.push(lines[i]);
      out.push({ kind: 'code', lines: body });
      continue;
    }
    if (line.trim() === '') {
      out.push({ kind: 'p', lines: [] });
      continue;
    }
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      out.push({ kind: 'h', text: heading[1] });
      continue;
    }
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d{1,3}[.)]\s+(.*)$/.exec(line);
    const kind = bullet ? 'ul' : numbered ? 'ol' : 'p';
    const content = bullet?.[1] ?? numbered?.[1] ?? line;
    const last = out.at(-1);
    if (last && last.kind === kind && (kind !== 'p' || last.lines.length > 0)) last.lines.push(content);
    else out.push({ kind, lines: [content] });
  }
  return out.filter((block) => block.kind !== 'p' || block.lines.length > 0);
}

/** Markdown to HTML in which every character of `text` is escaped or part of a tag written here. */
export function renderMarkdown(text: string): string {
  return blocks(text)
    .map((block) => {
      if (block.kind === 'code') return `<pre><code>${escapeHtml(block.lines.join('\n'))}</code></pre>`;
      if (block.kind === 'h') return `<p><strong>${inline(escapeHtml(block.text))}</strong></p>`;
      const items = block.lines.map((line) => inline(escapeHtml(line)));
      if (block.kind === 'p') return `<p>${items.join('<br>')}</p>`;
      return `<${block.kind}>${items.map((item) => `<li>${item}</li>`).join('')}</${block.kind}>`;
    })
    .join('');
}
