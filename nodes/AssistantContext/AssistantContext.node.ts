// Assistant Context: who is talking (identity → user), what the agent should know before answering
// (personality, recent turns, relevant memories), storing the turn afterwards, the settings, and what the model calls
// cost (the spending report).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantContextV1 } from './v1/AssistantContextV1.node';

export class AssistantContext extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Context',
      name: 'assistantContext',
      icon: 'file:assistantContext.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description:
        "Resolve the user, load the agent's context, store the turn, read and change settings, report the model costs",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantContextV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
