// Assistant Web v1: the operation selector, then each operation's parameters. The engines need no key, and the
// browser service's address and key come from the environment n8n runs with (docs/WEB.md). Search may have the
// assistant's Postgres, to use the engine chosen in the stored settings.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { POSTGRES_CREDENTIAL } from '../../../shared/transport/postgres';
import * as checkUrl from './checkUrl.operation';
import * as readPage from './readPage.operation';
import * as search from './search.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Web' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  usableAsTool: true,
  credentials: [{ name: POSTGRES_CREDENTIAL, required: false, displayOptions: { show: { operation: ['search'] } } }],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Check URL',
          value: 'checkUrl',
          action: 'Check a URL against the outbound guard',
          description: 'Whether the URL may be called: the allow list, private addresses, the n8n API and the judge',
        },
        {
          name: 'Read Page',
          value: 'readPage',
          action: 'Read a web page',
          description: 'The readable content of a URL as Markdown (or text for PDFs), with its title and links',
        },
        {
          name: 'Search',
          value: 'search',
          action: 'Search the web',
          description: 'Titles, URLs and snippets from DuckDuckGo or SearXNG',
        },
      ],
      default: 'search',
    },
    ...checkUrl.description,
    ...readPage.description,
    ...search.description,
  ],
};
