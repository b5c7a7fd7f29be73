// Assistant Outbox: the one path for everything the assistant says on its own: queued once, delivered with retries,
// every outcome recorded, and listed for clients that pull.
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantOutboxV1 } from './v1/AssistantOutboxV1.node';

export class AssistantOutbox extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Outbox',
      name: 'assistantOutbox',
      icon: 'file:assistantOutbox.svg',
      group: ['transform'],
      defaultVersion: 1,
      subtitle: '={{ $parameter["operation"] }}',
      description:
        'Everything the assistant says on its own: queue, deliver (Telegram, signed callbacks), list for pulling',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantOutboxV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
