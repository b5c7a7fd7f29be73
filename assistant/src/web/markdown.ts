// HTML → Markdown with turndown: ATX headings, fenced code, `-` lists; scripts, styles, form controls and media dropped;
// images kept only by their alt text.
import TurndownService from 'turndown';

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '_',
    linkStyle: 'inlined',
  });
  // Forms themselves stay: some sites (ASP.NET) wrap the whole page in one; their controls go.
  service.remove([
    'script',
    'style',
    'noscript',
    'template',
    'iframe',
    'object',
    'embed',
    'button',
    'select',
    'textarea',
    'svg',
  ]);
  service.addRule('imageAlt', {
    filter: 'img',
    replacement: (_content, node) => {
      const alt = (node as { getAttribute(name: string): string | null })
        .getAttribute('alt')
        ?.replace(/\s+/g, ' ')
        .trim();
      return alt ? `[image: ${alt}]` : '';
    },
  });
  // `- item` and `1. item` rather than turndown's `-   item`: fewer characters for the model to read.
  service.addRule('compactListItem', {
    filter: 'li',
    replacement: (content, node, options) => {
      const item = node as unknown as ListItem;
      const parent = item.parentNode;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? 1) || 1;
        prefix = `${start + Array.prototype.indexOf.call(parent.children, item)}. `;
      }
      const text = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + text + (item.nextSibling && !/\n$/.test(text) ? '\n' : '');
    },
  });
  return service;
}

/** What the list rule reads of a DOM node (there are no DOM types in this package). */
interface ListItem {
  nextSibling: unknown;
  parentNode: { nodeName: string; children: ArrayLike<unknown>; getAttribute(name: string): string | null } | null;
}

/** Markdown for an HTML fragment (a string of HTML, as Readability gives the article). */
export function htmlToMarkdown(html: string): string {
  return turndown()
    .turndown(html)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
