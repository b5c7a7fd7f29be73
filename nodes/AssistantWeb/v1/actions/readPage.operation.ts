// Read Page: a URL's readable content (Markdown for HTML, text for PDFs), its title and links; rendered in the
// browser service when the page needs JavaScript or when asked.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { DEFAULT_MAX_CHARS, markUntrusted, MAX_MAX_CHARS, MIN_MAX_CHARS, type WebTools } from 'assistant-core/web';

import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'URL',
    name: 'url',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'e.g. https://example.com/article',
    description: 'The page to read (http or https)',
  },
  {
    displayName: 'Max Characters',
    name: 'maxChars',
    type: 'number',
    typeOptions: { minValue: MIN_MAX_CHARS, maxValue: MAX_MAX_CHARS },
    default: DEFAULT_MAX_CHARS,
    description: 'The most characters of content to return; the rest is cut off, with a note saying how much',
  },
  {
    displayName: 'Render With Browser',
    name: 'render',
    type: 'boolean',
    default: false,
    description:
      'Whether to always render the page in the browser service (it is rendered anyway when it seems to need JavaScript)',
  },
];

const displayOptions = { show: { operation: ['readPage'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, tools: WebTools, itemIndex: number): Promise<IDataObject> {
  const page = await tools.reader.read({
    url: parameter(this, 'url', itemIndex),
    maxChars: parameter(this, 'maxChars', itemIndex),
    render: parameter(this, 'render', itemIndex),
  });
  // The page's words reach the model marked as outside data (the title and links stay fields of their own).
  return asData({ ...page, content: markUntrusted(`the page ${page.finalUrl}`, page.content) });
}
