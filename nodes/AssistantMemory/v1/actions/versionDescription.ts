// Assistant Memory v1: the operation selector, then each operation's parameters.
import { NodeConnectionTypes } from 'n8n-workflow';

import type { VersionDescription } from '../../../shared/helpers/descriptions';
import { POSTGRES_CREDENTIAL } from '../../../shared/transport/postgres';
import { CHAT_MODEL_CREDENTIAL } from '../transport/chatModel';
import { EMBEDDINGS_CREDENTIAL } from '../../../shared/transport/embeddings';
import * as captureMemories from './captureMemories.operation';
import * as consolidateMemories from './consolidateMemories.operation';
import * as consolidationReport from './consolidationReport.operation';
import * as forget from './forget.operation';
import * as get from './get.operation';
import * as listKept from './listKept.operation';
import * as pinMemory from './pinMemory.operation';
import * as recall from './recall.operation';
import * as recent from './recent.operation';
import * as remember from './remember.operation';
import * as restoreMemory from './restoreMemory.operation';
import * as update from './update.operation';

export const versionDescription: VersionDescription = {
  version: 1,
  defaults: { name: 'Assistant Memory' },
  inputs: [NodeConnectionTypes.Main],
  outputs: [NodeConnectionTypes.Main],
  usableAsTool: true,
  credentials: [
    { name: POSTGRES_CREDENTIAL, required: true },
    { name: EMBEDDINGS_CREDENTIAL, required: false },
    // The agent's Assistant Chat Model (through the model gateway), for capture's extraction calls and the summaries.
    {
      name: CHAT_MODEL_CREDENTIAL,
      required: true,
      displayOptions: { show: { operation: ['captureMemories', 'consolidateMemories'] } },
    },
  ],
  properties: [
    {
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      options: [
        {
          name: 'Capture Memories',
          value: 'captureMemories',
          action: 'Capture memories from an idle conversation',
          description:
            "Extract the people, companies, relations and facts of the next idle conversation into the graph and memories (the chat model's tool call, validated; retried once, then dropped)",
        },
        {
          name: 'Consolidate Memories',
          value: 'consolidateMemories',
          action: 'Consolidate the memories of the users due',
          description:
            'In their quiet hours: merge repeated memories and fold old, low-value ones into summaries within the budget (restorable by ID for 30 days)',
        },
        {
          name: 'Consolidation Report',
          value: 'consolidationReport',
          action: 'Report what consolidation tidied up',
          description: 'What the nightly consolidation merged and folded since a time, in plain words',
        },
        { name: 'Forget', value: 'forget', action: 'Forget a memory', description: 'Delete a memory' },
        { name: 'Get', value: 'get', action: 'Get a memory', description: 'One memory by ID' },
        {
          name: 'List Kept',
          value: 'listKept',
          action: 'List what is kept about the user',
          description: "The user's memories with IDs and dates, and an entity's graph facts",
        },
        {
          name: 'Pin Memory',
          value: 'pinMemory',
          action: 'Pin a memory',
          description: 'Pin or unpin a memory (pinned ones are never folded)',
        },
        {
          name: 'Recall',
          value: 'recall',
          action: 'Recall memories',
          description:
            'Find the memories most relevant to a query (full text, names, recency, embeddings when configured)',
        },
        { name: 'Recent', value: 'recent', action: 'List recent memories', description: 'The newest memories' },
        { name: 'Remember', value: 'remember', action: 'Remember a fact', description: 'Store a new memory' },
        {
          name: 'Restore Memory',
          value: 'restoreMemory',
          action: 'Restore a folded memory',
          description: 'Make a merged or folded memory live again by ID (within 30 days)',
        },
        {
          name: 'Update',
          value: 'update',
          action: 'Update a memory',
          description: 'Change some fields of a memory',
        },
      ],
      default: 'recall',
    },
    ...captureMemories.description,
    ...consolidateMemories.description,
    ...consolidationReport.description,
    ...forget.description,
    ...get.description,
    ...listKept.description,
    ...pinMemory.description,
    ...recall.description,
    ...recent.description,
    ...remember.description,
    ...restoreMemory.description,
    ...update.description,
  ],
};
