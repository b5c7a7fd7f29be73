// Search: the web, with no API key: DuckDuckGo's HTML endpoint or SearXNG. The engine is the stored setting
// (searchBackend, searxngUrl) when the node has the assistant's Postgres, else the environment's
// (ASSISTANT_SEARCH_BACKEND). With a turn, the results' URLs are kept for it: reading one of them later in the run
// is no URL the model made up (safety/tool-approval.ts), so search-then-read needs no approval.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import { getInstanceSettings, rememberTurnLinks } from 'assistant-core';
import {
  DEFAULT_MAX_RESULTS,
  markUntrusted,
  MAX_RESULTS_LIMIT,
  untrustedId,
  type WebSearch,
  type WebTools,
} from 'assistant-core/web';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { assistantDatabase, POSTGRES_CREDENTIAL } from '../../../shared/transport/postgres';

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
  {
    displayName: 'Turn ID',
    name: 'turnId',
    type: 'number',
    default: 0,
    description:
      "The turn whose run searches (0: none); its results' URLs are kept for it. Needs the assistant's Postgres.",
  },
];

const displayOptions = { show: { operation: ['search'] } };

export const description = updateDisplayOptions(displayOptions, properties);

/** The engine of the stored settings when the node has the database, else the environment's. */
async function engine(context: IExecuteFunctions, tools: WebTools): Promise<WebSearch> {
  if (!context.getNode().credentials?.[POSTGRES_CREDENTIAL]) return tools.search;
  const settings = await getInstanceSettings(await assistantDatabase(context));
  return tools.searchWith(settings);
}

export async function execute(this: IExecuteFunctions, tools: WebTools, itemIndex: number): Promise<IDataObject> {
  const answer = await (
    await engine(this, tools)
  ).search({
    query: parameter(this, 'query', itemIndex),
    maxResults: parameter(this, 'maxResults', itemIndex),
  });
  const turnId = parameter(this, 'turnId', itemIndex) as number;
  if (turnId > 0 && this.getNode().credentials?.[POSTGRES_CREDENTIAL]) {
    const urls = answer.results.map((result) => result.url);
    await rememberTurnLinks(await assistantDatabase(this), turnId, urls);
  }
  // What the sites say of themselves (titles and snippets) reaches the model marked as outside data.
  const id = untrustedId(); // one per answer: the marks stay short
  const results = answer.results.map((result) => ({
    ...result,
    title: markUntrusted('a search result', result.title, id),
    snippet: markUntrusted('a search result', result.snippet, id),
  }));
  return asData({ ...answer, results });
}
