// Assistant Knowledge Graph: people, companies, products, … and typed relations between them, per user.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantKnowledgeGraphV1 } from './v1/AssistantKnowledgeGraphV1.node';

export class AssistantKnowledgeGraph extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Knowledge Graph',
      name: 'assistantKnowledgeGraph',
      icon: 'file:assistantKnowledgeGraph.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "Entities and their relations in the assistant user's knowledge graph",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantKnowledgeGraphV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
