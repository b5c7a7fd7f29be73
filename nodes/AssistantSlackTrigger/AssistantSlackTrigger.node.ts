// Assistant Slack Trigger: holds the Slack app's Socket Mode WebSocket (no public URL needed), acknowledges each
// envelope at once, drops Slack's retries of an event it already handed on, and starts the workflow with each DM,
// mention or button click as one item ({externalId, sessionId, text, questionId?, replyToMessageId?, replyTarget}).
import { VersionedNodeType, type INodeTypeBaseDescription, type IVersionedNodeType } from 'n8n-workflow';

import { AssistantSlackTriggerV1 } from './v1/AssistantSlackTriggerV1.node';

export class AssistantSlackTrigger extends VersionedNodeType {
  constructor() {
    const baseDescription: INodeTypeBaseDescription = {
      displayName: 'Assistant Slack Trigger',
      name: 'assistantSlackTrigger',
      icon: 'file:assistantSlackTrigger.svg',
      group: ['trigger'],
      defaultVersion: 1,
      description: "Starts the assistant on a Slack DM, mention or button click, over Slack's Socket Mode",
    };
    const nodeVersions: IVersionedNodeType['nodeVersions'] = { 1: new AssistantSlackTriggerV1(baseDescription) };
    super(nodeVersions, baseDescription);
  }
}
