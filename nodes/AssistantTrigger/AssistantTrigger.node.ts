// Assistant Trigger: POST /webhook/agent. Checks the API key and the body before any execution exists, so refused
// calls leave no trace and no execution ever holds the caller's headers: accepted calls start the workflow with the
// request's fields only ({channel, externalId, message, sessionId, metadata, replyTo}).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantTriggerV1 } from './v1/AssistantTriggerV1.node';

export class AssistantTrigger extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Trigger',
      name: 'assistantTrigger',
      icon: 'file:assistantTrigger.svg',
      group: ['trigger'],
      defaultVersion: 1,
      description: 'Starts the assistant on an authenticated POST {message, user_id} (X-API-Key), headers left out',
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantTriggerV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
