// Assistant Experts: the experts the main agent delegates to: what model each runs with (its own, or the chat model
// setting), set by the operator (docs/EXPERTS.md).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantExpertsV1 } from './v1/AssistantExpertsV1.node';

export class AssistantExperts extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Experts',
      name: 'assistantExperts',
      icon: 'file:assistantExperts.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "The assistant's expert sub-agents: each one's model",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantExpertsV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
