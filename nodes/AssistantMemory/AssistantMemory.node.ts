// Assistant Memory: remember, recall, update and forget what the assistant knows about one user.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantMemoryV1 } from './v1/AssistantMemoryV1.node';

export class AssistantMemory extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Memory',
      name: 'assistantMemory',
      icon: 'file:assistantMemory.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "Remember, recall, update and forget facts about the assistant's user",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantMemoryV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
