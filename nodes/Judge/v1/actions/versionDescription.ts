// Judge v1: the mode selector, then each mode's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { INBOUND_KEY_CREDENTIAL } from '../helpers/inboundKey';
import { configureOutputs } from '../helpers/outputs';
import { SYSTEM_ONE_CREDENTIAL } from '../../../shared/transport/systemOneClient';
import * as judgeItems from './judgeItems.operation';
import * as passThrough from './passThrough.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Judge' },
  inputs: [NodeConnectionTypes.Main],
  outputs: `={{(${configureOutputs})($parameter)}}`,
  usableAsTool: true,
  credentials: [
    { name: SYSTEM_ONE_CREDENTIAL, required: true },
    { name: INBOUND_KEY_CREDENTIAL, required: true, displayOptions: { show: { mode: ['passThrough'] } } },
  ],
  properties: [
    {
      displayName: 'Mode',
      name: 'mode',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Judge Items',
          value: 'judge',
          description: 'Ask the questions below about a state read from each item',
          action: 'Judge items',
        },
        {
          name: 'Pass Through Webhook Request',
          value: 'passThrough',
          description:
            'Check the Bearer key of the incoming webhook request, forward its body to the judge, and answer ' +
            "the call with the judge's status, body and headers",
          action: 'Pass through a webhook request',
        },
      ],
      default: 'judge',
    },
    ...judgeItems.description,
    ...passThrough.description,
  ],
};
