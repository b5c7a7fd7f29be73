// Update Instance Settings: change the defaults for every user, the chat model and its timeouts, and the owner's chat.
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';
import type { Pool } from 'pg';
import {
  MAX_CAPTURE_IDLE_MINUTES,
  MAX_MEMORY_BUDGET,
  MAX_MODEL_TIMEOUT_SECONDS,
  MAX_REPLY_DEADLINE_SECONDS,
  MAX_RUN_LIMIT_SECONDS,
  updateInstanceSettings,
} from 'assistant-core';

import { asData, parameter } from '../../../shared/helpers/parameters';
import { settingsFields } from './common.descriptions';

const properties: INodeProperties[] = [
  {
    displayName: 'Settings',
    name: 'instanceSettings',
    type: 'collection',
    placeholder: 'Add Setting',
    default: {},
    options: [
      ...settingsFields,
      {
        displayName: 'Approval Judge Threshold',
        name: 'approvalJudgeThreshold',
        type: 'number',
        typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 2 },
        default: 0.5,
        description:
          "Under a tool's judge rule, the user is asked when the Judge's probability that they would want to be asked is at or above this",
      },
      {
        displayName: 'Capture Idle (Minutes)',
        name: 'captureIdleMinutes',
        type: 'number',
        typeOptions: { minValue: 0, maxValue: MAX_CAPTURE_IDLE_MINUTES },
        default: 5,
        description:
          'Memory capture reads a conversation once its last message is this many minutes old; 0 turns capture off',
      },
      {
        displayName: 'Chat Model',
        name: 'chatModel',
        type: 'string',
        default: '',
        description:
          'The model name the Chat Model node asks the provider for, e.g. gpt-4o-mini or qwen2.5:7b-instruct',
      },
      {
        displayName: 'Memory Budget',
        name: 'memoryBudget',
        type: 'number',
        typeOptions: { minValue: 0, maxValue: MAX_MEMORY_BUDGET },
        default: 2000,
        description:
          'The live memories each user keeps: the nightly consolidation folds the oldest, least important ones into summaries beyond it; 0 turns the nightly consolidation off',
      },
      {
        displayName: 'Model Timeout (Seconds)',
        name: 'modelTimeoutSeconds',
        type: 'number',
        typeOptions: { minValue: 10, maxValue: MAX_MODEL_TIMEOUT_SECONDS },
        default: 300,
        description: 'How long one model call may take before the Chat Model gives up (it retries once)',
      },
      { displayName: 'Owner Telegram Chat ID', name: 'ownerTelegramChatId', type: 'string', default: '' },
      {
        displayName: 'Question Timeout (Seconds)',
        name: 'questionTtlSeconds',
        type: 'number',
        typeOptions: { minValue: 5, maxValue: 600 },
        default: 300,
        description: 'How long a question the assistant asks (a one-time code, an approval) waits for the answer',
      },
      {
        displayName: 'Reply Deadline (Seconds)',
        name: 'replyDeadlineSeconds',
        type: 'number',
        typeOptions: { minValue: 1, maxValue: MAX_REPLY_DEADLINE_SECONDS },
        default: 600,
        description: 'How long a webhook caller waits for the reply before a 504 with the turn ID (the run goes on)',
      },
      {
        displayName: 'Run Limit (Seconds)',
        name: 'runLimitSeconds',
        type: 'number',
        typeOptions: { minValue: 10, maxValue: MAX_RUN_LIMIT_SECONDS },
        default: MAX_RUN_LIMIT_SECONDS,
        description:
          'The longest one run of the agent may take; its tools stop then (a browser task is closed, a question withdrawn)',
      },
      {
        displayName: 'Search Engine',
        name: 'searchBackend',
        type: 'options',
        options: [
          { name: 'DuckDuckGo (No Key)', value: 'duckduckgo' },
          { name: 'From the Environment (ASSISTANT_SEARCH_BACKEND)', value: 'default' },
          { name: 'SearXNG', value: 'searxng' },
        ],
        default: 'default',
        description: 'The engine web_search asks',
      },
      {
        displayName: 'SearXNG URL',
        name: 'searxngUrl',
        type: 'string',
        default: '',
        placeholder: 'e.g. http://searxng:8080',
        description: 'SearXNG\'s base URL; "default" for the environment\'s ASSISTANT_SEARXNG_URL',
      },
      {
        displayName: 'Tool Approvals',
        name: 'toolApprovals',
        type: 'json',
        default: '{}',
        description:
          'The approval rule per tool over its default: {"delete_task": "ask-user"}; rules never, ask-user, ask-operator, judge, or default to go back (docs/ASSISTANT.md)',
      },
    ],
  },
];

const displayOptions = { show: { operation: ['updateInstanceSettings'] } };

export const description = updateDisplayOptions(displayOptions, properties);

export async function execute(this: IExecuteFunctions, pool: Pool, itemIndex: number): Promise<IDataObject> {
  const settings = parameter(this, 'instanceSettings', itemIndex) as IDataObject;
  return asData(await updateInstanceSettings(pool, settings));
}
