// Assistant Failures: what went wrong, from the error workflow, the outbox and the scheduler, and its plain-language list.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantFailuresV1 } from './v1/AssistantFailuresV1.node';

export class AssistantFailures extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Failures',
      name: 'assistantFailures',
      icon: 'file:assistantFailures.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: 'Failure awareness: failed executions, deliveries and runs, and outages, in plain words',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantFailuresV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
