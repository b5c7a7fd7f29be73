// Search: the web, with no API key: DuckDuckGo's HTML endpoint or SearXNG (ASSISTANT_SEARCH_BACKEND).
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { DEFAULT_MAX_RESULTS, MAX_RESULTS_LIMIT, type WebTools } from 'assistant-core/web';

import { asData, parameter } from '../../../shared/helpers/parameters';

const properties: INodeProperties[] = [
  {
    displayName: 'Query',
    name: 'query',
    type: 'string',
    required: true,
    default: '',
    placeholder: 'e.g. opening hours of the Dresden zoo',
    description: 'What to search the web for',
  },
  {
    displayName: 'Max Results',
    name: 'maxResults',
    type: 'number',
    typeOptions: { minValue: 1, maxValue: MAX_RESULTS_LIMIT },
    default: DEFAULT_MAX_RESULTS,
    description: 'Max number of results to return (duplicates removed)',
  },
];

const displayOptions = { show: { operation: ['search'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, tools: WebTools, itemIndex: number): Promise<IDataObject> {
  const answer = await tools.search.search({
    query: parameter(this, 'query', itemIndex),
    maxResults: parameter(this, 'maxResults', itemIndex),
  });
  return asData(answer);
}
