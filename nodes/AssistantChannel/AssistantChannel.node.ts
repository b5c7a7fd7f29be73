// Assistant Channel: the assistant's front door. Checks webhook calls (API key, body) and Telegram updates
// (owner only), and shapes replies and failures for the channel they came from.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantChannelV1 } from './v1/AssistantChannelV1.node';

export class AssistantChannel extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Channel',
      name: 'assistantChannel',
      icon: 'file:assistantChannel.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description: "Check the assistant's webhook requests and Telegram updates, and format its replies",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantChannelV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
